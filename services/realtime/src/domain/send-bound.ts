// The per-client send bound: a client whose unsent bytes would pass `max` is too slow to
// keep. A message is always allowed onto an empty buffer, so one event larger than the
// bound does not cut every client; memory per client stays under max + one message.
export function wouldOverflow(bufferedBytes: number, messageBytes: number, max: number): boolean {
  return bufferedBytes > 0 && bufferedBytes + messageBytes > max;
}
