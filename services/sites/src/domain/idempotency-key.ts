// The `Idempotency-Key` request header of POST /api/sites (IETF httpapi draft "The
// Idempotency-Key HTTP Header Field"): a client that retries a submission with the same key
// gets the first answer again, and the retry is not counted as another submission.
//
// - The key is optional. When sent it must be 1–255 printable ASCII characters (an
//   Structured-Field string as the draft writes it, `"…"`, or the bare value; both name the
//   same key). Anything else: 400.
// - Keys are scoped to the caller (the user when logged in, else the client IP's HMAC) and
//   live 24 hours.
// - The fingerprint is what the request asks for: the normalised URL. A CAPTCHA token is
//   left out (single use: a retry may carry a fresh one), and two spellings of one URL are
//   one request. The same key with another fingerprint: 422, as the draft says.
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key's first answer is replayed. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600_000;

export const INVALID_IDEMPOTENCY_KEY =
  'Invalid Idempotency-Key header: 1 to 255 printable ASCII characters';
export const IDEMPOTENCY_KEY_REUSED = 'Idempotency-Key already used for a different request';

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

export type ParsedIdempotencyKey = { ok: true; key: string | null } | { ok: false; reason: string };

/** The header as Node gives it (`undefined` when absent; repeated headers arrive joined). */
export function parseIdempotencyKey(header: string | string[] | undefined): ParsedIdempotencyKey {
  if (header === undefined) return { ok: true, key: null };
  if (Array.isArray(header)) return { ok: false, reason: INVALID_IDEMPOTENCY_KEY };
  const key = unquote(header.trim());
  if (
    key === null ||
    key.length === 0 ||
    key.length > IDEMPOTENCY_KEY_MAX_LENGTH ||
    !PRINTABLE_ASCII.test(key)
  ) {
    return { ok: false, reason: INVALID_IDEMPOTENCY_KEY };
  }
  return { ok: true, key };
}

/**
 * `"abc"` → `abc` (RFC 8941 sf-string: `\"` and `\\` escapes, nothing else escaped); a value
 * without quotes is taken as it is; a malformed quoted string is null.
 */
function unquote(value: string): string | null {
  if (!value.startsWith('"')) return value;
  const m = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value);
  return m ? m[1]!.replace(/\\(["\\])/g, '$1') : null;
}

/** Whose key it is: keys of different callers never meet. */
export function idempotencyScope(caller: { userId: string | null; ipHash: string }): string {
  return caller.userId !== null ? `user:${caller.userId}` : `ip:${caller.ipHash}`;
}

/** What the submission asks for, as stored beside its key. */
export function submissionFingerprint(normalisedUrl: string): string {
  return createHash('sha256').update(`POST /api/sites\n${normalisedUrl}`).digest('hex');
}

export interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

/** A retry with a known key: the first answer again, or 422 when it asks for something else. */
export function replayDecision(
  stored: StoredAnswer,
  fingerprint: string,
): { kind: 'replay'; status: number; body: string } | { kind: 'mismatch' } {
  return stored.fingerprint === fingerprint
    ? { kind: 'replay', status: stored.status, body: stored.body }
    : { kind: 'mismatch' };
}
