// Session middleware: reads the sn_token cookie, verifies it, checks in Redis that it is
// neither logged out nor older than the user's last sign-out everywhere, and sets
// `req.caller`. Routes that need a user add `requireSession`.
import type { Redis } from '../redis/redis.js';
import { parseCookie } from 'cookie';
import type { Request, RequestHandler } from 'express';
import { MODERATORS_ONLY } from '@svc/types';
import { forbidden, unauthorized } from '../http/errors.js';
import { SESSION_COOKIE, verifySessionToken, type SessionClaims } from './session-token.js';
import { sessionKeySet, type SessionVerifyKeys } from './session-keys.js';
import { readSessionState } from './session-state.js';

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
    // Fails closed: with Redis down the check throws and the request gets 503.
    readSessionState(opts.redis, opts.prefix, claims).then(({ valid, role }) => {
      if (valid) {
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
