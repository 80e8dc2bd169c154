// Event ids are Redis stream ids `<ms>-<seq>` (decimal, no leading zeros, each < 2^64).
// They order events; compared as numbers part by part, without BigInt on the hot path:
// for canonical decimals a shorter string is a smaller number.
import { EVENT_ID_PATTERN } from '@svc/types';

/** A canonical id (the contract's EventId), or undefined. */
export function parseEventId(text: string | null | undefined): string | undefined {
  return typeof text === 'string' && EVENT_ID_PATTERN.test(text) ? text : undefined;
}

function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** <0, 0, >0 as a is before, the same as, or after b. Both must be canonical ids. */
export function compareEventIds(a: string, b: string): number {
  const da = a.indexOf('-');
  const db = b.indexOf('-');
  return (
    compareDecimal(a.slice(0, da), b.slice(0, db)) ||
    compareDecimal(a.slice(da + 1), b.slice(db + 1))
  );
}

export type ResumeCheck = 'ok' | 'expired' | 'future';

/**
 * Whether every event after `after` is still in the stream: `lastId` is the newest id the
 * stream ever generated, `maxDeletedId` the highest id trimmed away ("0-0" if none).
 * Resuming from an id past the newest is an error (the client's id comes from another
 * history, e.g. Redis lost its data); from before the highest trimmed id some events are
 * gone: resync.
 */
export function checkResume(after: string, lastId: string, maxDeletedId: string): ResumeCheck {
  if (compareEventIds(after, lastId) > 0) return 'future';
  if (compareEventIds(after, maxDeletedId) < 0) return 'expired';
  return 'ok';
}
