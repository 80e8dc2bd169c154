// A new user's username: the part of the email before `@`, reduced to the characters a
// username may hold (letters of any script, digits, `_`, `-`) and 3–32 long.
import { codePointLength, truncateText } from '@svc/types';

export function baseUsername(email: string): string {
  const local = email.split('@')[0] ?? '';
  let name = local.normalize('NFC').replace(/[^\p{L}\p{M}\p{Nd}_-]+/gu, '_').replace(/^_+|_+$/g, '');
  if (codePointLength(name) < 3) name = `${name || 'user'}_user`;
  return truncateText(name, 32);
}

/** The n-th alternative when the base is taken: `alice-2`, `alice-3`, … kept within 32. */
export function usernameCandidate(base: string, attempt: number): string {
  if (attempt === 0) return base;
  const suffix = `-${attempt + 1}`;
  return truncateText(base, 32 - suffix.length) + suffix;
}
