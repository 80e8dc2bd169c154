// Real-time channel messages (docs/api-reference.md "Real-time channel", docs/decisions/006-real-time-channel.md).
import { z } from 'zod';
import { ChatMessage } from './chat.js';
import { Site } from './sites.js';

/**
 * Redis pub/sub channel that also carries each published RealtimeEvent (without its id), for
 * observers such as tests and tools; realtime reads the stream below, not this channel.
 */
export const REDIS_EVENTS_CHANNEL = 'svc:events';
/**
 * The Redis Stream every service appends RealtimeEvent JSON to (the kit's event publisher):
 * one ordered history, the same for every realtime replica. An entry's stream id
 * (`<ms>-<seq>`) is the event's `id` on the socket.
 */
export const REDIS_EVENTS_STREAM = 'svc:events:stream';
/**
 * The kept history (the resume window): an event is kept while it is one of the newest
 * EVENT_HISTORY_MIN_EVENTS or younger than EVENT_HISTORY_MIN_AGE_MS, whichever keeps more,
 * but never more than EVENT_HISTORY_MAX_EVENTS (a hard memory bound: the 10 minutes hold
 * as long as the channel carries under 166 events/s).
 */
export const EVENT_HISTORY_MIN_EVENTS = 10_000;
export const EVENT_HISTORY_MIN_AGE_MS = 10 * 60 * 1000;
export const EVENT_HISTORY_MAX_EVENTS = 100_000;
export const WS_PATH = '/api/ws';
/**
 * Resume: connect to `/api/ws?last_event_id=<id>` with the `id` of the last event seen. The
 * server sends every later event in order exactly once, then live events; if that id is older
 * than the kept history it sends one `resync` event first (re-read what you show).
 */
export const WS_RESUME_PARAM = 'last_event_id';
/**
 * An event id: a Redis stream id `<ms>-<seq>`, decimal without leading zeros. Ids order
 * events: compare ms, then seq.
 */
export const EVENT_ID_PATTERN = /^(0|[1-9][0-9]{0,19})-(0|[1-9][0-9]{0,19})$/;
export const EventId = z.string().regex(EVENT_ID_PATTERN);
/**
 * Close code after an `error` event when `last_event_id` is malformed or newer than any
 * event (the server's history was lost): reconnect without it and re-read what you show.
 */
export const WS_CLOSE_BAD_RESUME = 4400;
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

/** What services publish (REDIS_EVENTS_STREAM) and realtime broadcasts with its `id`. */
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

/**
 * Sent on resume when the requested id is older than the kept history: some events are
 * gone, so the client re-reads the lists it shows; live events follow.
 */
export const ResyncMessage = z.object({
  event: z.literal('resync'),
  payload: z.object({ reason: z.literal('history_expired') }),
});
export type ResyncMessage = z.infer<typeof ResyncMessage>;

/** Sent before closing with WS_CLOSE_BAD_RESUME: why the resume request was refused. */
export const ErrorMessage = z.object({
  event: z.literal('error'),
  payload: z.object({ error: z.string() }),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

/**
 * The `id` every event carries on the socket (pong, resync and error have none). Optional in
 * the schema so a client written before ids keeps validating; the server always sends it.
 */
const id = { id: EventId.optional() };

/** Everything the server may send on the socket. */
export const ServerMessage = z.discriminatedUnion('event', [
  NewMessageEvent.extend(id),
  SiteUpdateEvent.extend(id),
  LikeEvent.extend(id),
  MessageDeletedEvent.extend(id),
  PongMessage,
  ResyncMessage,
  ErrorMessage,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
