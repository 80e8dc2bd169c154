// Session middleware: reads the sn_token cookie, verifies it, checks revocation in
// Redis, and sets `req.caller`. Routes that need a user add `requireSession`.
import type { Redis } from '../redis/redis.js';
import { parseCookie } from 'cookie';
import type { Request, RequestHandler } from 'express';
import { MODERATORS_ONLY } from '@svc/types';
import { forbidden, unauthorized } from '../http/errors.js';
import {
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  verifySessionToken,
  type SessionClaims,
} from './session-token.js';
import { sessionKeySet, type SessionVerifyKeys } from './session-keys.js';

export interface Caller {
  userId: string;
  email: string;
  username: string;
  /** How the caller proved who they are: a session cookie or (app-store) an API key. */
  via: 'session' | 'api-key';
  session?: SessionClaims;
  apiKey?: { id: string; appId: string };
  /**
   * A moderator's session (docs/decisions/016-moderator-role.md): the token's `mod` claim, unless auth has
   * since granted or revoked the role (the override in Redis wins). Never true for an API key.
   */
  isModerator?: boolean;
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

/**
 * The moderator role of a user as auth last changed it ('1' granted, '0' revoked). It
 * overrides the `mod` claim of every session of that user, so a grant or revoke takes effect
 * at once in open sessions. It lives as long as a session can, so that every token signed
 * before the change has expired when it goes; tokens signed after carry the right claim.
 */
export const moderatorRoleKey = (prefix: string, userId: string) => `${prefix}auth:moderator:${userId}`;

/** Auth's side of the override: records a grant (true) or a revoke (false) for every open session. */
export async function setModeratorRole(
  redis: Redis,
  prefix: string,
  userId: string,
  isModerator: boolean,
): Promise<void> {
  await redis.set(moderatorRoleKey(prefix, userId), isModerator ? '1' : '0', 'EX', SESSION_TTL_SECONDS);
}

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
  /** The accepted public keys: `loadJwtKeys(...).verifyKeys` (or one PEM). */
  publicKey: SessionVerifyKeys;
  redis: Redis;
  prefix: string;
}): RequestHandler {
  // Parsed once, here: a bad key stops the process at start, not each request.
  const keys = sessionKeySet(opts.publicKey);
  return (req, _res, next) => {
    const token = sessionTokenFrom(req);
    if (!token) return next();
    const claims = verifySessionToken(token, keys);
    if (!claims) return next();
    // Fails closed: with Redis down the revocation check throws and the request gets 503.
    // Two GETs sent together (one round trip on one node): not an MGET, because on a Redis
    // Cluster the two keys live in different slots (an MGET across slots is refused).
    Promise.all([
      opts.redis.get(revocationKey(opts.prefix, claims.jti)),
      opts.redis.get(moderatorRoleKey(opts.prefix, claims.sub)),
    ])
      .then(([revoked, role]) => {
        if (revoked === null) {
          req.caller = {
            userId: claims.sub,
            email: claims.email,
            username: claims.username,
            via: 'session',
            session: claims,
            isModerator: role === null ? claims.mod === true : role === '1',
          };
        }
        next();
      }, next);
  };
}

export const requireSession: RequestHandler = (req, _res, next) => {
  next(req.caller ? undefined : unauthorized());
};

/** True for a moderator's session (docs/decisions/016-moderator-role.md); false for API keys and anonymous callers. */
export const callerIsModerator = (req: Request): boolean =>
  req.caller?.via === 'session' && req.caller.isModerator === true;

/**
 * For every `/moderation` endpoint: 401 without a session, 403 `{ "error": "Moderators only" }`
 * for anyone but a moderator (an API key never is one). Mount after `sessionMiddleware`.
 */
export const requireModerator: RequestHandler = (req, _res, next) => {
  if (!req.caller) return next(unauthorized());
  next(callerIsModerator(req) ? undefined : forbidden(MODERATORS_ONLY));
};
