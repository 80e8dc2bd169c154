// What the server does with a text frame from a client: only `{ "event": "ping" }` means
// anything (docs/decisions/006-real-time-channel.md); everything else is ignored. And the shape of what it
// sends: each stream entry once as `{ id, event, payload }`.
import { ClientMessage } from '@svc/types';

export function isPing(text: string): boolean {
  try {
    const parsed = ClientMessage.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.event === 'ping';
  } catch {
    return false;
  }
}

/**
 * A published event must at least look like `{ event: string, payload: object }` so clients
 * never receive junk.
 */
export function isRelayableEvent(raw: string): boolean {
  return parseRelayable(raw) !== undefined;
}

function parseRelayable(raw: string): { event: string; payload: object } | undefined {
  try {
    const v = JSON.parse(raw) as { event?: unknown; payload?: unknown };
    if (
      typeof v === 'object' &&
      v !== null &&
      typeof v.event === 'string' &&
      v.event.length > 0 &&
      typeof v.payload === 'object' &&
      v.payload !== null
    ) {
      return { event: v.event, payload: v.payload };
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}

/** The frame of a stream entry, `{ id, event, payload }`, or undefined for a malformed one. */
export function eventFrame(id: string, raw: string): string | undefined {
  const v = parseRelayable(raw);
  return v && JSON.stringify({ id, event: v.event, payload: v.payload });
}

export const resyncFrame = (): string =>
  JSON.stringify({ event: 'resync', payload: { reason: 'history_expired' } });

export const errorFrame = (error: string): string =>
  JSON.stringify({ event: 'error', payload: { error } });
