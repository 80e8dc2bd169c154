// Public chat room: messages, likes and entrance messages (docs/api-reference.md, docs/decisions/019-chat.md).
import { z } from 'zod';
import { text } from './text-schema.js';
import { Id, IsoDateTime, LimitParam } from './common.js';
import { CHAT_MESSAGE_MAX_LENGTH } from './constants.js';

/** One entrance message per IP per this many seconds. */
export const ENTRANCE_COOLDOWN_SECONDS = 10 * 60;

export const ChatMessageType = z.enum(['chat', 'system', 'entrance']);
export type ChatMessageType = z.infer<typeof ChatMessageType>;

/** `<country_code>|<city>`; the city part may be empty when only the country is known. */
export const SenderLocation = z
  .string()
  .regex(/^[A-Z]{2}\|[^|]*$/, 'Location must be <country_code>|<city>');
export type SenderLocation = z.infer<typeof SenderLocation>;

export const ChatMessage = z.object({
  id: Id,
  type: ChatMessageType,
  /** Plain text, never HTML. */
  content: z.string(),
  content_key: z.string().nullable(),
  content_params: z.record(z.string(), z.unknown()).nullable(),
  sender_name: z.string(),
  sender_location: SenderLocation.nullable(),
  /** Likes the message has received so far (0 for a new message; system and entrance messages can be liked too). */
  like_count: z.number().int().min(0),
  created_at: IsoDateTime,
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/** Newest `limit` messages, returned oldest first. */
export const ChatMessageListQuery = z.object({ limit: LimitParam });
export type ChatMessageListQuery = z.infer<typeof ChatMessageListQuery>;

export const ChatMessageListResponse = z.object({ messages: z.array(ChatMessage) });
export type ChatMessageListResponse = z.infer<typeof ChatMessageListResponse>;

/** Trimmed first, so whitespace-only content is empty and refused. */
export const PostChatMessageBody = z.object({
  content: text(CHAT_MESSAGE_MAX_LENGTH, { trim: true, min: 1 }),
});
export type PostChatMessageBody = z.infer<typeof PostChatMessageBody>;

export const PostChatMessageResponse = z.object({
  message: ChatMessage.extend({ type: z.literal('chat') }),
});
export type PostChatMessageResponse = z.infer<typeof PostChatMessageResponse>;

export const ChatMessageParams = z.object({
  id: Id.meta({ param: { description: 'The message’s id' } }),
});
export type ChatMessageParams = z.infer<typeof ChatMessageParams>;

export const LikeChatMessageResponse = z.object({
  liked: z.literal(true),
  like_count: z.number().int().min(1),
});
export type LikeChatMessageResponse = z.infer<typeof LikeChatMessageResponse>;

/**
 * Internal (realtime → chat, not routed by the gateway): a WebSocket client connected from
 * this IP; chat decides whether the 10-minute window allows a new entrance message.
 */
export const EntranceRequestBody = z.object({
  ip: z.union([z.ipv4(), z.ipv6()]),
});
export type EntranceRequestBody = z.infer<typeof EntranceRequestBody>;

/**
 * chat's internal entrance endpoint (internal.ts: the internal paths, their token): not
 * under /api, so the gateway never routes it.
 */
export const ENTRANCE_PATH = '/internal/entrance';

/** `message` is null when the IP already had an entrance message in the window. */
export const EntranceResponse = z.object({
  message: ChatMessage.extend({ type: z.literal('entrance') }).nullable(),
});
export type EntranceResponse = z.infer<typeof EntranceResponse>;

/**
 * System messages (the interface descriptions leave the set open; docs/decisions/019-chat.md documents it). Other services
 * ask chat to post one through the durable BullMQ queue SYSTEM_MESSAGE_QUEUE, so a 2xx that
 * caused one never loses it even while chat is down. `content` is an English fallback;
 * clients translate by `content_key` with `content_params`.
 */
export const SYSTEM_MESSAGE_QUEUE = 'chat-system';

export const SiteSubmittedParams = z.object({
  site_id: Id,
  url: z.string(),
  domain: z.string(),
});
export const AppBlockedParams = z.object({
  slug: z.string(),
  name: z.string(),
});
export type SiteSubmittedParams = z.infer<typeof SiteSubmittedParams>;
export type AppBlockedParams = z.infer<typeof AppBlockedParams>;

export const SystemMessageJob = z.discriminatedUnion('content_key', [
  z.object({ content_key: z.literal('site_submitted'), content_params: SiteSubmittedParams }),
  z.object({ content_key: z.literal('app_blocked'), content_params: AppBlockedParams }),
]);
export type SystemMessageJob = z.infer<typeof SystemMessageJob>;
export type SystemMessageKey = SystemMessageJob['content_key'];

// ---- moderation ------------------------------------------------------------------------

/** DELETE /api/moderation/messages/{id}: the message is gone from the room (and from open clients). */
export const DeleteChatMessageResponse = z.object({ deleted: z.literal(true), id: Id });
export type DeleteChatMessageResponse = z.infer<typeof DeleteChatMessageResponse>;

/** Longest chat mute a moderator may set: 30 days. */
export const CHAT_MUTE_MAX_MINUTES = 30 * 24 * 60;

/**
 * POST /api/moderation/chat/mutes: `sender` is the id of a chat message the sender wrote
 * (messages carry no sender identity publicly). The mute applies to that message's logged-in
 * author (by user id) or, for a visitor, to the keyed hash of their IP that chat stored with it.
 */
export const MuteChatSenderBody = z.object({
  sender: Id,
  minutes: z.number().int().min(1).max(CHAT_MUTE_MAX_MINUTES),
  /** why (kept in the chat's audit log); optional */
  reason: text(500, { trim: true }).optional(),
});
export type MuteChatSenderBody = z.infer<typeof MuteChatSenderBody>;

export const MuteChatSenderResponse = z.object({
  muted: z.literal(true),
  /** `user` when the sender was logged in (muted by user id), else `visitor` (by IP hash). */
  sender_kind: z.enum(['user', 'visitor']),
  muted_until: IsoDateTime,
});
export type MuteChatSenderResponse = z.infer<typeof MuteChatSenderResponse>;
