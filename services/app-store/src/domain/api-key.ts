// API keys (docs/decisions/003-app-store-api-keys.md): `svc_live_<random>`, shown once; only the SHA-256 is stored.
import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX, ApiKeySecret } from '@svc/types';

/** Characters of the key kept in listings (`svc_live_` plus four of the secret). */
export const API_KEY_DISPLAY_LENGTH = API_KEY_PREFIX.length + 4;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: string;
}

/** 32 random bytes (256 bits) in base64url. */
export function generateApiKey(random: (n: number) => Buffer = randomBytes): NewApiKey {
  const key = `${API_KEY_PREFIX}${random(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_LENGTH), hash: hashApiKey(key) };
}

export type BearerCredential =
  { kind: 'none' } | { kind: 'malformed' } | { kind: 'key'; key: string };

/** Reads `Authorization: Bearer <key>`; anything else in the header is malformed (401). */
export function parseBearer(header: string | undefined): BearerCredential {
  if (header === undefined || header === '') return { kind: 'none' };
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match || !ApiKeySecret.safeParse(match[1]).success || match[1]!.length > 200)
    return { kind: 'malformed' };
  return { kind: 'key', key: match[1]! };
}

/** `last_used_at` is written at most once per interval, not on every request. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export const needsLastUsedWrite = (
  lastUsedAt: Date | null,
  now: Date,
  intervalMs = LAST_USED_WRITE_INTERVAL_MS,
): boolean => lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= intervalMs;
