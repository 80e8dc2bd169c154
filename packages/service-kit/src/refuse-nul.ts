// PostgreSQL text cannot hold U+0000, so a NUL that reached a query used to end in a 500.
// No field of either API can meaningfully contain one, so every request carrying one (in
// the path, the query string or any string or key of a JSON body) is refused up front with
// 400, before authentication, limits or any store is touched.
import type { RequestHandler } from 'express';
import { ERROR_MESSAGES } from '@svc/types';

/** `%00` (any case) or a raw NUL in the request target. */
const NUL_IN_URL = /%00|\0/i;

export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  for (const [key, v] of Object.entries(value)) {
    if (key.includes('\0') || containsNul(v, depth + 1)) return true;
  }
  return false;
}

export const refuseNul: RequestHandler = (req, res, next) => {
  if (NUL_IN_URL.test(req.originalUrl) || containsNul(req.body)) {
    res.status(400).json({ error: ERROR_MESSAGES.nulCharacter });
    return;
  }
  next();
};
