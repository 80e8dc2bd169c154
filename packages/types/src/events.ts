// Real-time channel messages (docs/api-reference.md "Real-time channel", docs/decisions.md §6).
import { z } from 'zod';
import { ChatMessage } from './chat.js';
import { Site } from './sites.js';

/** Redis pub/sub channel every service publishes RealtimeEvent JSON to; realtime fans it out. */
export const REDIS_EVENTS_CHANNEL = 'svc:events';
export const WS_PATH = '/api/ws';
export const WS_PING_INTERVAL_MS = 30_000;
/**
 * Close code the server sends to every socket when a replica shuts down (1012 Service
 * Restart): clients should reconnect after a short random delay and reload missed messages.
 */
export const WS_CLOSE_SERVICE_RESTART = 1012;
/** Largest frame a client may send (it only ever sends `{"event":"ping"}`); larger → 1009. */
export const WS_MAX_CLIENT_FRAME_BYTES = 1024;

export const NewMessageEvent = z.object({
  event: z.literal('new_message'),
  payload: ChatMessage,
});
export type NewMessageEvent = z.infer<typeof NewMessageEvent>;

/** Partial Site sent after metadata/tags are fetched; `id` is always present. */
export const SiteUpdatePayload = Site.partial().required({ id: true });
export type SiteUpdatePayload = z.infer<typeof SiteUpdatePayload>;

export const SiteUpdateEvent = z.object({
  event: z.literal('site_update'),
  payload: SiteUpdatePayload,
});
export type SiteUpdateEvent = z.infer<typeof SiteUpdateEvent>;

/**
 * fromUser / toUser are display names. `like_count` is the message's total after this like
 * (chat always sends it; optional so that older publishers stay valid): clients set their
 * count to it rather than adding one, so a missed or repeated event cannot skew it.
 */
export const LikePayload = z.object({
  messageId: z.string().min(1),
  fromUser: z.string(),
  toUser: z.string(),
  like_count: z.number().int().min(1).optional(),
});
export type LikePayload = z.infer<typeof LikePayload>;

export const LikeEvent = z.object({
  event: z.literal('like'),
  payload: LikePayload,
});
export type LikeEvent = z.infer<typeof LikeEvent>;

/** A moderator deleted a chat message: clients remove it from their list. */
export const MessageDeletedEvent = z.object({
  event: z.literal('message_deleted'),
  payload: z.object({ id: z.string().min(1) }),
});
export type MessageDeletedEvent = z.infer<typeof MessageDeletedEvent>;

/** What services publish on REDIS_EVENTS_CHANNEL and realtime broadcasts unchanged. */
export const RealtimeEvent = z.discriminatedUnion('event', [
  NewMessageEvent,
  SiteUpdateEvent,
  LikeEvent,
  MessageDeletedEvent,
]);
export type RealtimeEvent = z.infer<typeof RealtimeEvent>;
export type RealtimeEventName = RealtimeEvent['event'];

/** Application-level keep-alive a client may send. */
export const PingMessage = z.object({ event: z.literal('ping') });
export type PingMessage = z.infer<typeof PingMessage>;

export const PongMessage = z.object({ event: z.literal('pong'), payload: z.strictObject({}) });
export type PongMessage = z.infer<typeof PongMessage>;

/** Everything a client may send (anything else is ignored by the server). */
export const ClientMessage = z.discriminatedUnion('event', [PingMessage]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Everything the server may send on the socket. */
export const ServerMessage = z.discriminatedUnion('event', [
  NewMessageEvent,
  SiteUpdateEvent,
  LikeEvent,
  MessageDeletedEvent,
  PongMessage,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
