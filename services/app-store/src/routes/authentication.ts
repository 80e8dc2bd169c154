// Who is calling: `Authorization: Bearer <API key>` or the `sn_token` session cookie
// (docs/api-reference.md, docs/decisions/003-app-store-api-keys.md). The kit's sessionMiddleware reads
// the cookie; keys are looked up here by their SHA-256. A Bearer header, when present,
// decides: a bad key is a 401 even if a cookie is also sent.
import type { Request, RequestHandler } from 'express';
import { ERROR_MESSAGES } from '@svc/types';
import { byIp, forbidden, unauthorized, type Caller, type RateLimit } from '@svc/service-kit';
import {
  LAST_USED_WRITE_INTERVAL_MS,
  hashApiKey,
  needsLastUsedWrite,
  parseBearer,
} from '../domain/api-key.js';
import type { AppStore } from '../store/store.js';

/** `session`: cookie only (a key is refused with 403). `session-or-key`: either. */
export type AuthRequirement = 'session' | 'session-or-key';

export const KEY_REFUSED_MESSAGE =
  'API keys cannot be used for this endpoint; use the session cookie';

export function createAuthentication(deps: {
  store: AppStore;
  sessions: RequestHandler;
  /** Failed key authentications per IP (see rate-limits.ts). */
  keyFailures: RateLimit;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  async function callerFromKey(key: string): Promise<Caller | undefined> {
    const found = await deps.store.findKeyByHash(hashApiKey(key));
    // A withdrawn app's keys stop at once (docs/decisions/033-withdraw-an-app.md).
    if (!found || found.revokedAt || found.appStatus === 'withdrawn') return undefined;
    const at = now();
    if (needsLastUsedWrite(found.lastUsedAt, at))
      await deps.store.touchKey(found.id, at, LAST_USED_WRITE_INTERVAL_MS);
    return {
      userId: found.authorId,
      email: found.email ?? '',
      username: found.username ?? '',
      via: 'api-key',
      apiKey: { id: found.id, appId: found.appId },
    };
  }

  /**
   * The key's caller, undefined for an unknown or revoked key (one failure counted for the
   * IP), or 'answered' when the IP has used up its failures (429 sent, no look-up made).
   */
  async function authenticateKey(
    key: string,
    req: Request,
    res: Parameters<RequestHandler>[1],
  ): Promise<Caller | undefined | 'answered'> {
    const ip = byIp(req);
    if (!(await deps.keyFailures.check(ip, res))) return 'answered';
    const caller = await callerFromKey(key);
    if (caller) return caller;
    return (await deps.keyFailures.consume(ip, res)) ? undefined : 'answered';
  }

  /** Sets req.caller or answers 401 (and 403 for a key where only a session is accepted). */
  return function authenticate(requirement: AuthRequirement): RequestHandler {
    return (req, res, next) => {
      const bearer = parseBearer(req.headers.authorization);
      if (bearer.kind === 'malformed') return next(unauthorized());
      if (bearer.kind === 'key') {
        authenticateKey(bearer.key, req, res).then((caller) => {
          if (caller === 'answered') return;
          if (!caller) return next(unauthorized());
          if (requirement === 'session') return next(forbidden(KEY_REFUSED_MESSAGE));
          req.caller = caller;
          next();
        }, next);
        return;
      }
      deps.sessions(req, res, (err?: unknown) => {
        if (err) return next(err);
        next(req.caller ? undefined : unauthorized(ERROR_MESSAGES.authenticationRequired));
      });
    };
  };
}

export function callerOf(req: Request): Caller {
  if (!req.caller) throw unauthorized();
  return req.caller;
}
