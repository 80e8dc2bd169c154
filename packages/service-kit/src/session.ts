// Session middleware: reads the sn_token cookie, verifies it, checks revocation in
// Redis, and sets `req.caller`. Routes that need a user add `requireSession`.
import type { Redis } from 'ioredis';
import { parseCookie } from 'cookie';
import type { Request, RequestHandler } from 'express';
import { unauthorized } from './errors.js';
import { SESSION_COOKIE, verifySessionToken, type SessionClaims } from './session-token.js';

export interface Caller {
  userId: string;
  email: string;
  username: string;
  /** How the caller proved who they are: a session cookie or (app-store) an API key. */
  via: 'session' | 'api-key';
  session?: SessionClaims;
  apiKey?: { id: string; appId: string };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

export const revocationKey = (prefix: string, jti: string) => `${prefix}auth:revoked:${jti}`;

/** Marks a session revoked until it would have expired anyway. */
export async function revokeSession(
  redis: Redis,
  prefix: string,
  claims: SessionClaims,
): Promise<void> {
  const ttl = Math.max(1, claims.exp - Math.floor(Date.now() / 1000));
  await redis.set(revocationKey(prefix, claims.jti), '1', 'EX', ttl);
}

export function sessionTokenFrom(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[SESSION_COOKIE] || undefined;
}

export function sessionMiddleware(opts: {
  publicKey: string;
  redis: Redis;
  prefix: string;
}): RequestHandler {
  return (req, _res, next) => {
    const token = sessionTokenFrom(req);
    if (!token) return next();
    const claims = verifySessionToken(token, opts.publicKey);
    if (!claims) return next();
    // Fails closed: with Redis down the revocation check throws and the request gets 503.
    opts.redis.exists(revocationKey(opts.prefix, claims.jti)).then((revoked) => {
      if (!revoked) {
        req.caller = {
          userId: claims.sub,
          email: claims.email,
          username: claims.username,
          via: 'session',
          session: claims,
        };
      }
      next();
    }, next);
  };
}

export const requireSession: RequestHandler = (req, _res, next) => {
  next(req.caller ? undefined : unauthorized());
};
