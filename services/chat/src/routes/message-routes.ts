// HTTP of /api/messages: parse with the shared schemas, call the room, shape the answer.
import type { Express, RequestHandler } from 'express';
import { ChatMessageListQuery, ChatMessageParams, PostChatMessageBody } from '@svc/types';
import { byIp, limitFor, rateLimit, type Redis } from '@svc/service-kit';
import type { ChatRoom } from '../chat-room.js';

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

  app.post('/api/messages/:id/like', likeLimit.middleware, session, async (req, res) => {
    const { id } = ChatMessageParams.parse(req.params);
    res.json(await room.like(id, byIp(req), req.caller));
  });
}
