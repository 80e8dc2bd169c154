// The sn_token session: an ES256 JWT signed by auth, verified everywhere with the public
// keys of the configured set. The algorithm is pinned on verify: `none`, HS256 with the
// public key as secret, and other tricks are refused. The header's `kid` picks the key
// (session-keys.ts; rotation in docs/decisions/017-signing-key-rotation.md).
import { randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { SESSION_COOKIE_NAME, SESSION_TTL_SECONDS } from '@svc/types';
import { sessionKeySet, sessionSigningKey, type SessionVerifyKeys } from './session-keys.js';

export const SESSION_COOKIE = SESSION_COOKIE_NAME;
export { SESSION_TTL_SECONDS };

export interface SessionClaims {
  sub: string;
  email: string;
  username: string;
  jti: string;
  iat: number;
  exp: number;
  /** Only in a moderator's session (docs/decisions/016-moderator-role.md); absent otherwise. */
  mod?: true;
  /**
   * The user's session epoch when it was signed (session-state.ts); absent means 0. A sign-out
   * everywhere starts a later epoch, which refuses this session (docs/decisions/032-sign-out-everywhere.md).
   */
  epoch?: number;
}

export function signSessionToken(
  user: { id: string; email: string; username: string; isModerator?: boolean; epoch?: number },
  privateKeyPem: string,
  ttlSeconds = SESSION_TTL_SECONDS,
): { token: string; claims: SessionClaims } {
  const iat = Math.floor(Date.now() / 1000);
  const claims: SessionClaims = {
    sub: user.id,
    email: user.email,
    username: user.username,
    jti: randomUUID(),
    iat,
    exp: iat + ttlSeconds,
    ...(user.isModerator ? { mod: true as const } : {}),
    ...(user.epoch ? { epoch: user.epoch } : {}),
  };
  const signing = sessionSigningKey(privateKeyPem);
  const token = jwt.sign(claims, signing.key, { algorithm: 'ES256', keyid: signing.kid });
  return { token, claims };
}

/**
 * The keys that may have signed a token: the one its `kid` names (none for an unknown kid),
 * or, for a token without `kid` (signed before key ids existed, docs/decisions/017-signing-key-rotation.md), every
 * key of the set, so that sessions opened before the upgrade survive it and a later rotation.
 */
function candidateKeys(token: string, keys: SessionVerifyKeys): KeyObject[] {
  const header = jwt.decode(token, { complete: true })?.header;
  if (!header) return [];
  const { byKid } = sessionKeySet(keys);
  if (header.kid === undefined) return [...byKid.values()];
  const key = typeof header.kid === 'string' ? byKid.get(header.kid) : undefined;
  return key ? [key] : [];
}

/** The claims of a valid token, or null for anything else (bad signature, alg, kid, expiry, shape). */
export function verifySessionToken(token: string, keys: SessionVerifyKeys): SessionClaims | null {
  try {
    let decoded: string | jwt.JwtPayload | undefined;
    for (const key of candidateKeys(token, keys)) {
      try {
        decoded = jwt.verify(token, key, { algorithms: ['ES256'] });
        break;
      } catch {
        // the next candidate, if any
      }
    }
    if (typeof decoded !== 'object' || decoded === null) return null;
    const c = decoded as Partial<SessionClaims>;
    if (
      typeof c.sub !== 'string' ||
      typeof c.email !== 'string' ||
      typeof c.username !== 'string' ||
      typeof c.jti !== 'string' ||
      typeof c.exp !== 'number' ||
      typeof c.iat !== 'number' ||
      (c.mod !== undefined && c.mod !== true) ||
      (c.epoch !== undefined && !(Number.isSafeInteger(c.epoch) && c.epoch >= 0))
    ) {
      return null;
    }
    return c as SessionClaims;
  } catch {
    return null;
  }
}
