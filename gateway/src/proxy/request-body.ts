// A request body read whole before any upstream is called, so a client that sends slowly
// (or sends less than its Content-Length) holds a gateway socket, never an upstream one.
// Bounded in size (every route takes JSON of at most 64 KiB) and in time.
import type { IncomingMessage } from 'node:http';

export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** Why a body could not be had: 413, 408, or the client went away (nothing to answer). */
export type BodyFailure = 'too-large' | 'timeout' | 'aborted';

/**
 * Reads the request body into one Buffer, at most `maxBytes` and within `timeoutMs` of the
 * call (the headers are in by then), then calls `done` once: with the body, or with why
 * there is none. A declared Content-Length over the limit fails at once, before a
 * byte is read; a chunked body fails as soon as it passes the limit.
 */
export function readBody(
  req: IncomingMessage,
  limits: BodyLimits,
  done: (body: Buffer | BodyFailure) => void,
): void {
  const declared = req.headers['content-length'];
  // Node has already checked that it is one decimal number.
  if (declared !== undefined && Number(declared) > limits.maxBytes) {
    done('too-large');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;

  const settle = (outcome: Buffer | BodyFailure): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    done(outcome);
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limits.maxBytes) {
      settle('too-large');
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    settle(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  };
  // 'close' before 'end': the client went away (or Node cut the request) mid-body.
  const onClose = (): void => settle('aborted');
  const timer = setTimeout(() => settle('timeout'), limits.timeoutMs);

  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
}
