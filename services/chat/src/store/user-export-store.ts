// What chat holds about one user, read for their data export (docs/decisions/034-data-export.md):
// the messages they sent and liked while logged in, the mute running on their account, and
// the audit entries they wrote or that are about them (their messages, their account).
import { listUserAuditEntries, type AuditEntry, type Redis } from '@svc/service-kit';
import type { Message, MessageLike } from '../generated/prisma/client.js';
import { userLikerKey } from '../domain/ip-hash.js';
import { senderTargetId } from '../domain/moderation-audit.js';
import { muteKeyOf } from './mute-keys.js';
import type { ChatDb } from './store.js';

export interface ChatUserRows {
  messages: Message[];
  likes: MessageLike[];
  /** the end of the account's mute, while one runs */
  mutedUntil: Date | null;
  audit: AuditEntry[];
  readAt: Date;
}

export function createUserExportStore(deps: { db: ChatDb; redis: Redis; redisPrefix: string }) {
  const { db, redis } = deps;
  return {
    async read(userId: string): Promise<ChatUserRows> {
      const readAt = new Date();
      const [messages, likes, muteEnd] = await Promise.all([
        db.message.findMany({
          where: { senderUserId: userId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        }),
        db.messageLike.findMany({
          where: { likerKey: userLikerKey(userId) },
          orderBy: [{ createdAt: 'asc' }, { messageId: 'asc' }],
        }),
        redis.get(muteKeyOf(deps.redisPrefix, { kind: 'user', userId })),
      ]);
      const audit = await listUserAuditEntries(db, userId, {
        message: messages.map((m) => m.id),
        sender: [senderTargetId({ kind: 'user', userId })],
      });
      const until = Number(muteEnd ?? 0);
      return { messages, likes, mutedUntil: until > 0 ? new Date(until) : null, audit, readAt };
    },
  };
}
export type UserExportStore = ReturnType<typeof createUserExportStore>;
