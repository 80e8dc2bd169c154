// Internal calls from realtime. Not under /api, so the gateway (which routes only
// /api/messages* here) never exposes them; the shared INTERNAL_TOKEN guards the port itself.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import { ENTRANCE_PATH, EntranceRequestBody, INTERNAL_TOKEN_HEADER } from '@svc/types';
import { HttpError } from '@svc/service-kit';
import type { ChatRoom } from '../actions/chat-room.js';
import { ERROR_MESSAGES_FOR_CHAT } from '../domain/errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

function requireInternalToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const given = req.headers[INTERNAL_TOKEN_HEADER];
    // Compare digests: constant time whatever the length of the given value.
    if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected)) {
      throw new HttpError(403, ERROR_MESSAGES_FOR_CHAT.forbidden);
    }
    next();
  };
}

export function registerInternalRoutes(
  app: Express,
  deps: { room: ChatRoom; internalToken: string },
): void {
  app.post(ENTRANCE_PATH, requireInternalToken(deps.internalToken), async (req, res) => {
    const { ip } = EntranceRequestBody.parse(req.body);
    res.json({ message: await deps.room.entrance(ip) });
  });
}
