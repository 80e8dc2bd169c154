// The shared secret of calls between services (INTERNAL_TOKEN, docs/decisions/034-data-export.md).
// Internal endpoints live under /internal, a segment the gateway never forwards; the token
// guards the service's port itself against any other pod or process that reaches it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import type { z } from 'zod';
import {
  DEV_INTERNAL_TOKEN,
  INTERNAL_TOKEN_HEADER,
  INTERNAL_TOKEN_MIN_LENGTH,
  DELETABLE_USER_ID,
  INTERNAL_USER_EXPORT_PATH,
  INTERNAL_USER_PATH,
  InternalUserDeletionBody,
  InternalUserParams,
  toExpressPath,
} from '@svc/types';
import { badRequest, forbidden, notFound } from './errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Lets a request through only with `X-Internal-Token: <token>`; 403 otherwise. */
export function requireInternalToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const given = req.headers[INTERNAL_TOKEN_HEADER];
    // Digests compare in constant time whatever the length of the given value.
    if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected)) throw forbidden();
    next();
  };
}

/** The headers of an internal call. */
export const internalHeaders = (token: string): Record<string, string> => ({
  [INTERNAL_TOKEN_HEADER]: token,
});

/**
 * `GET /internal/users/{id}/export`, guarded: this service's section of a user's data export,
 * as `exportOf(userId)` answers it. A malformed id is 404, as for any unknown user.
 */
export function registerUserExport(
  app: Express,
  internalToken: string,
  exportOf: (userId: string) => Promise<unknown>,
): void {
  app.get(toExpressPath(INTERNAL_USER_EXPORT_PATH), requireInternalToken(internalToken), async (req, res) => {
    const params = InternalUserParams.safeParse(req.params);
    if (!params.success) throw notFound();
    res.json(await exportOf(params.data.id));
  });
}

/**
 * `DELETE /internal/users/{id}` with `{ pseudonym }`, guarded: this service removes or
 * anonymises what it holds about the user (docs/decisions/035-account-deletion.md), as
 * `deleteUser` does, then answers 204. `deleteUser` must be idempotent: auth's job repeats
 * the call until it sees a 204, and a user this service never knew is a 204 too. An id that
 * is not DELETABLE_USER_ID names no user: 404.
 */
export function registerUserDeletion(
  app: Express,
  internalToken: string,
  deleteUser: (userId: string, pseudonym: string) => Promise<void>,
): void {
  app.delete(toExpressPath(INTERNAL_USER_PATH), requireInternalToken(internalToken), async (req, res) => {
    const params = InternalUserParams.safeParse(req.params);
    if (!params.success || !DELETABLE_USER_ID.test(params.data.id)) throw notFound();
    const body = InternalUserDeletionBody.safeParse(req.body);
    if (!body.success) throw badRequest('pseudonym: deleted-user- and 16 hex digits');
    await deleteUser(params.data.id, body.data.pseudonym);
    res.status(204).end();
  });
}

/**
 * A config superRefine: in production INTERNAL_TOKEN must be set, INTERNAL_TOKEN_MIN_LENGTH
 * characters at least (a shorter secret is one a neighbour could guess).
 */
export function internalTokenRequiredInProduction(
  config: { NODE_ENV: string; INTERNAL_TOKEN?: string },
  ctx: z.RefinementCtx,
): void {
  if (config.NODE_ENV !== 'production') return;
  if ((config.INTERNAL_TOKEN?.length ?? 0) < INTERNAL_TOKEN_MIN_LENGTH)
    ctx.addIssue({
      code: 'custom',
      path: ['INTERNAL_TOKEN'],
      message: `a secret of at least ${INTERNAL_TOKEN_MIN_LENGTH} characters is required in production`,
    });
}

/** The configured token, or the development one (production has its own: above). */
export const internalTokenOrDev = (configured: string | undefined): string =>
  configured ?? DEV_INTERNAL_TOKEN;
