// What chat does, independent of HTTP: post, like, entrance and system messages, and the
// moderators' delete, mute and audit log. Each stored message is published as
// `new_message`, each like as `like` (docs/decisions/019-chat.md).
import {
  ENTRANCE_CONTENT,
  ENTRANCE_COOLDOWN_SECONDS,
  type ChatMessage,
  type LikePayload,
  type SystemMessageJob,
} from '@svc/types';
import type { Caller, EventPublisher, ListAuditQuery, Logger, Redis } from '@svc/service-kit';
import { HttpError, ERROR_MESSAGES_FOR_CHAT } from '../domain/errors.js';
import { formatSenderLocation, geoSenderName } from '../domain/geo-name.js';
import { newId, hashIp } from '@svc/service-kit';
import { likerKey, visitorTag } from '../domain/ip-hash.js';
import { senderMutedEntry } from '../domain/moderation-audit.js';
import { SYSTEM_SENDER_NAME, systemMessageText } from '../domain/system-message-text.js';
import type { GeoLookup } from '../clients/geo-lookup.js';
import type { MessageSender } from '../domain/moderation-audit.js';
import { muteKeyOf } from '../store/mute-keys.js';
import type { ChatStore } from '../store/store.js';
import type { ChatReads } from '../store/read-routing.js';

export interface ChatRoomDeps {
  store: ChatStore;
  /** Where GET /api/messages reads (store/read-routing.ts); unset = `store`. */
  reads?: ChatReads;
  events: EventPublisher;
  redis: Redis;
  redisPrefix: string;
  geo: GeoLookup;
  ipHashSecret: string;
  logger: Logger;
  now?: () => Date;
}

/** Who is speaking: a logged-in user by username, a visitor by a geo-based name. */
interface Speaker {
  name: string;
  location: string | null;
  userId: string | null;
  ipHash: string;
}

export function createChatRoom(deps: ChatRoomDeps) {
  const { store, events, redis, logger } = deps;
  const now = deps.now ?? (() => new Date());

  function speaker(ip: string, caller?: Caller): Speaker {
    const place = deps.geo(ip);
    return {
      name: caller?.username ?? geoSenderName(place, visitorTag(deps.ipHashSecret, ip, now())),
      location: formatSenderLocation(place),
      userId: caller?.userId ?? null,
      ipHash: hashIp(deps.ipHashSecret, ip),
    };
  }

  /**
   * Pub/sub is the only way a message reaches open sockets: a post is refused (503) while
   * Redis is down rather than stored silently. A publish failing after the insert is logged;
   * the message is stored and listed, so the 201 stays true.
   */
  function requireRedis(): void {
    if (redis.status !== 'ready') throw new Error('Redis is not ready');
  }

  const muteKey = (sender: MessageSender) => muteKeyOf(deps.redisPrefix, sender);

  /**
   * 403 while the speaker is muted: by their user id when logged in, and by their IP hash
   * either way (a muted visitor who logs in stays muted). The key holds the end as epoch ms.
   */
  async function refuseIfMuted(who: Speaker): Promise<void> {
    const keys = [muteKey({ kind: 'visitor', ipHash: who.ipHash })];
    if (who.userId) keys.push(muteKey({ kind: 'user', userId: who.userId }));
    // One GET per key, not an MGET: on a Redis Cluster the two keys sit in different slots.
    const values = await Promise.all(keys.map((k) => redis.get(k)));
    const until = Math.max(0, ...values.map((v) => Number(v ?? 0) || 0));
    if (until > now().getTime())
      throw new HttpError(403, ERROR_MESSAGES_FOR_CHAT.mutedUntil(new Date(until)));
  }

  async function publish(
    event: 'new_message' | 'like' | 'message_deleted',
    payload: ChatMessage | LikePayload | { id: string },
  ) {
    try {
      await events.publish(event, payload);
    } catch (err) {
      logger.warn({ err, event }, 'event not published');
    }
  }

  return {
    list: (limit: number) =>
      deps.reads
        ? deps.reads.read('messages', undefined, (s) => s.listRecent(limit))
        : store.listRecent(limit),
    /** The audit log of deletions and mutes, newest first (docs/decisions/024-audit-log-per-service.md). */
    audit: (query: ListAuditQuery) => store.audit(query),

    async post(content: string, ip: string, caller?: Caller): Promise<ChatMessage> {
      requireRedis();
      const who = speaker(ip, caller);
      await refuseIfMuted(who);
      const message = await store.insert({
        id: newId(),
        type: 'chat',
        content,
        senderName: who.name,
        senderLocation: who.location,
        senderUserId: who.userId,
        senderIpHash: who.ipHash,
      });
      await publish('new_message', message);
      return message;
    },

    async like(messageId: string, ip: string, caller?: Caller) {
      requireRedis();
      const who = speaker(ip, caller);
      const result = await store.like(messageId, likerKey(caller?.userId, who.ipHash));
      if (result.status === 'not_found')
        throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.messageNotFound);
      if (result.status === 'duplicate')
        throw new HttpError(409, ERROR_MESSAGES_FOR_CHAT.alreadyLiked);
      await publish('like', {
        messageId,
        fromUser: who.name,
        toUser: result.senderName,
        like_count: result.likeCount,
      });
      return { liked: true as const, like_count: result.likeCount };
    },

    /**
     * Moderation: the message is no longer listed, and `message_deleted { id }` goes through
     * the same pub/sub path as new messages, so realtime removes it from every open client.
     * The audit entry (message.deleted, by `actor`) commits with the deletion.
     */
    async deleteMessage(id: string, actor: string): Promise<void> {
      requireRedis();
      if (!(await store.markDeleted(id, actor)))
        throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.messageNotFound);
      await publish('message_deleted', { id });
    },

    /**
     * Moderation: mutes the sender of message `messageId` for `minutes` (a new mute replaces
     * the previous one). A Redis key with the mute's expiry, shared by every chat replica.
     * The audit entry (sender.muted) and the key are written in one PostgreSQL transaction:
     * the key is set last before COMMIT, so a failed SET leaves no entry; if the COMMIT
     * itself fails the previous mute is put back (best effort) before answering 5xx.
     */
    async mute(messageId: string, minutes: number, actor: string, reason = '') {
      const sender = await store.senderOf(messageId);
      if (!sender) throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.messageNotFound);
      if (sender === 'none') throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.noSender);
      const key = muteKey(sender);
      const previous = Number(await redis.get(key)) || null;
      const until = now().getTime() + minutes * 60_000;
      const entry = senderMutedEntry({
        actor,
        sender,
        messageId,
        reason,
        minutes,
        previousUntil: previous && previous > now().getTime() ? new Date(previous) : null,
        until: new Date(until),
      });
      let applied = false;
      try {
        const stillTheSender = await store.auditedSenderChange(
          messageId,
          sender,
          entry,
          async () => {
            await redis.set(key, String(until), 'PXAT', until);
            applied = true;
          },
        );
        // The sender deleted their account meanwhile: nobody left to mute.
        if (!stillTheSender) throw new HttpError(404, ERROR_MESSAGES_FOR_CHAT.noSender);
      } catch (err) {
        if (applied) {
          const undo =
            previous && previous > now().getTime()
              ? redis.set(key, String(previous), 'PXAT', previous)
              : redis.del(key);
          await Promise.resolve(undo).catch((e: unknown) =>
            logger.error({ err: e, key }, 'could not undo a mute whose audit entry failed'),
          );
        }
        throw err;
      }
      return {
        muted: true as const,
        sender_kind: sender.kind,
        muted_until: new Date(until).toISOString(),
      };
    },

    /**
     * At most one entrance per IP per window: a Redis SET NX with expiry claims the window
     * first (shared by every chat replica); if storing then fails the claim is released so
     * the next connection tries again.
     */
    async entrance(ip: string): Promise<ChatMessage | null> {
      const who = speaker(ip);
      const key = `${deps.redisPrefix}chat:entrance:${who.ipHash}`;
      const claimed = await redis.set(key, '1', 'EX', ENTRANCE_COOLDOWN_SECONDS, 'NX');
      if (claimed !== 'OK') return null;
      try {
        const message = await store.insert({
          id: newId(),
          type: 'entrance',
          content: ENTRANCE_CONTENT,
          senderName: who.name,
          senderLocation: who.location,
          senderIpHash: who.ipHash,
        });
        await publish('new_message', message);
        return message;
      } catch (err) {
        await redis.del(key).catch(() => undefined);
        throw err;
      }
    },

    /**
     * Stores a queued system message once: the id comes from the job, so a retried job
     * (stored, then crashed before acknowledging) finds its row and only publishes again.
     */
    async system(job: SystemMessageJob, jobKey: string): Promise<ChatMessage> {
      const { message } = await store.insertOnce({
        id: `sys-${jobKey}`,
        type: 'system',
        content: systemMessageText(job),
        contentKey: job.content_key,
        contentParams: job.content_params,
        senderName: SYSTEM_SENDER_NAME,
        senderLocation: null,
      });
      await events.publish('new_message', message);
      return message;
    },
  };
}
export type ChatRoom = ReturnType<typeof createChatRoom>;
