// HTTP of /api/messages: parse with the shared schemas, call the room, shape the answer.
import type { Express, RequestHandler } from 'express';
import {
  ChatAuditQuery,
  ChatMessageListQuery,
  ChatMessageParams,
  MuteChatSenderBody,
  PostChatMessageBody,
} from '@svc/types';
import {
  auditPageFor,
  byIp,
  limitFor,
  rateLimit,
  requireModerator,
  type Redis,
} from '@svc/service-kit';
import { HttpError, ERROR_MESSAGES_FOR_CHAT } from '../domain/errors.js';
import type { ChatRoom } from '../actions/chat-room.js';

/** Registered on the app itself (not a Router) so the kit answers 405 for other methods. */
export function registerMessageRoutes(
  app: Express,
  deps: { room: ChatRoom; redis: Redis; redisPrefix: string; session: RequestHandler },
): void {
  const { room, redis, redisPrefix: prefix, session } = deps;
  // Per IP, the catalogue's numbers (docs/api-reference.md: 10/min for posts; likes are not
  // shown there, 30/min chosen).
  const postLimit = rateLimit({ redis, prefix, name: 'chat-post', key: byIp, ...limitFor('postChatMessage') });
  const likeLimit = rateLimit({ redis, prefix, name: 'chat-like', key: byIp, ...limitFor('likeChatMessage') });
  app.get('/api/messages', async (req, res) => {
    const { limit } = ChatMessageListQuery.parse(req.query);
    res.json({ messages: await room.list(limit) });
  });

  app.post('/api/messages', postLimit.middleware, session, async (req, res) => {
    const { content } = PostChatMessageBody.parse(req.body);
    const message = await room.post(content, byIp(req), req.caller);
    res.status(201).json({ message });
  });

  // Moderation (moderators only: 401 without a session, 403 `Moderators only`).
  app.delete('/api/moderation/messages/:id', session, requireModerator, async (req, res) => {
    const params = ChatMessageParams.safeParse(req.params);
    if (!params.success) throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.messageNotFound);
    await room.deleteMessage(params.data.id, req.caller!.userId);
    res.json({ deleted: true, id: params.data.id });
  });

  app.post('/api/moderation/chat/mutes', session, requireModerator, async (req, res) => {
    const { sender, minutes, reason } = MuteChatSenderBody.parse(req.body);
    res.json(await room.mute(sender, minutes, req.caller!.userId, reason));
  });

  // The audit log of deletions and mutes (docs/decisions/024-audit-log-per-service.md).
  app.get('/api/moderation/chat/audit', session, requireModerator, async (req, res) => {
    res.json(await auditPageFor(ChatAuditQuery, req.query, room.audit));
  });

  app.post('/api/messages/:id/like', likeLimit.middleware, session, async (req, res) => {
    const { id } = ChatMessageParams.parse(req.params);
    res.json(await room.like(id, byIp(req), req.caller));
  });
}
