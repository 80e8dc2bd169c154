// The sn_token session: an ES256 JWT signed by auth, verified everywhere with the
// public key. The algorithm is pinned on verify: `none`, HS256 with the public key as
// secret, and other tricks are refused.
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { SESSION_COOKIE_NAME, SESSION_TTL_SECONDS } from '@svc/types';

export const SESSION_COOKIE = SESSION_COOKIE_NAME;
export { SESSION_TTL_SECONDS };

export interface SessionClaims {
  sub: string;
  email: string;
  username: string;
  jti: string;
  iat: number;
  exp: number;
  /** Only in a moderator's session (docs/decisions.md §2); absent otherwise. */
  mod?: true;
}

export function signSessionToken(
  user: { id: string; email: string; username: string; isModerator?: boolean },
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
  };
  const token = jwt.sign(claims, privateKeyPem, { algorithm: 'ES256' });
  return { token, claims };
}

/** The claims of a valid token, or null for anything else (bad signature, alg, expiry, shape). */
export function verifySessionToken(token: string, publicKeyPem: string): SessionClaims | null {
  try {
    const decoded = jwt.verify(token, publicKeyPem, { algorithms: ['ES256'] });
    if (typeof decoded !== 'object' || decoded === null) return null;
    const c = decoded as Partial<SessionClaims>;
    if (
      typeof c.sub !== 'string' ||
      typeof c.email !== 'string' ||
      typeof c.username !== 'string' ||
      typeof c.jti !== 'string' ||
      typeof c.exp !== 'number' ||
      typeof c.iat !== 'number' ||
      (c.mod !== undefined && c.mod !== true)
    ) {
      return null;
    }
    return c as SessionClaims;
  } catch {
    return null;
  }
}
