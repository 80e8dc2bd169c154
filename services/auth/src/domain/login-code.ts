// Login codes: 6 random digits, valid 10 minutes, at most 5 wrong attempts, stored only
// as a keyed hash. Six digits are a small space, so a plain hash of a leaked table would
// fall to brute force; an HMAC with a server-side secret does not.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { VERIFICATION_CODE_MAX_ATTEMPTS, VERIFICATION_CODE_TTL_SECONDS } from '@svc/types';

export const CODE_TTL_MS = VERIFICATION_CODE_TTL_SECONDS * 1000;
export const MAX_WRONG_ATTEMPTS = VERIFICATION_CODE_MAX_ATTEMPTS;
/**
 * Expired codes each send-code deletes. A row names an address (of someone who may never
 * have signed up), so it goes once it can no longer be used; each send makes at most one
 * row and removes up to this many dead ones, so they cannot pile up.
 */
export const EXPIRED_CODES_PER_SEND = 10;

export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export function hashCode(secret: string, email: string, code: string): string {
  return createHmac('sha256', secret).update(`${email}\n${code}`).digest('hex');
}

export function codeMatches(secret: string, email: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(hashCode(secret, email, code), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
