// What the server does with a text frame from a client: only `{ "event": "ping" }` means
// anything (docs/decisions.md §6); everything else is ignored.
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
 * A relayed pub/sub message is forwarded byte for byte; it must at least look like
 * `{ event: string, payload: object }` so clients never receive junk.
 */
export function isRelayableEvent(raw: string): boolean {
  try {
    const v = JSON.parse(raw) as { event?: unknown; payload?: unknown };
    return (
      typeof v === 'object' &&
      v !== null &&
      typeof v.event === 'string' &&
      v.event.length > 0 &&
      typeof v.payload === 'object' &&
      v.payload !== null
    );
  } catch {
    return false;
  }
}
