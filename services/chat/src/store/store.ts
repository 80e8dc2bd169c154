// chat's tables through Prisma: newest messages, inserts, and one like per liker.
import type { ChatMessage, ChatMessageType } from '@svc/types';
import {
  appendAuditEntry,
  listAuditEntries,
  type AuditEntryInput,
  type ListAuditQuery,
} from '@svc/service-kit';
import { messageDeletedEntry, type MessageSender } from '../domain/moderation-audit.js';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Message } from '../generated/prisma/client.js';

export type ChatDb = PrismaClient;

export interface NewMessage {
  id: string;
  type: ChatMessageType;
  content: string;
  contentKey?: string | null;
  contentParams?: Record<string, unknown> | null;
  senderName: string;
  senderLocation: string | null;
  senderUserId?: string | null;
  senderIpHash?: string | null;
}

export type LikeResult =
  | { status: 'liked'; likeCount: number; senderName: string }
  | { status: 'not_found' }
  | { status: 'duplicate' };

export function toChatMessage(row: Message): ChatMessage {
  return {
    id: row.id,
    type: row.type,
    content: row.content,
    content_key: row.contentKey,
    content_params: (row.contentParams as Record<string, unknown> | null) ?? null,
    sender_name: row.senderName,
    sender_location: row.senderLocation,
    like_count: row.likeCount,
    created_at: row.createdAt.toISOString(),
  };
}

const isUniqueViolation = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

export function createChatStore(db: ChatDb) {
  return {
    /** The newest `limit` messages, oldest first. */
    async listRecent(limit: number): Promise<ChatMessage[]> {
      const rows = await db.message.findMany({
        where: { deletedAt: null },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit,
      });
      return rows.reverse().map(toChatMessage);
    },

    async insert(m: NewMessage): Promise<ChatMessage> {
      const row = await db.message.create({
        data: {
          ...m,
          contentParams: (m.contentParams as Prisma.InputJsonObject | null) ?? Prisma.DbNull,
        },
      });
      return toChatMessage(row);
    },

    /** Insert unless a message with this id exists (an idempotent retry); either way the row. */
    async insertOnce(m: NewMessage): Promise<{ message: ChatMessage; created: boolean }> {
      try {
        return { message: await this.insert(m), created: true };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        const row = await db.message.findUniqueOrThrow({ where: { id: m.id } });
        return { message: toChatMessage(row), created: false };
      }
    },

    /**
     * Moderation: marks a message deleted and appends its audit entry in the same
     * transaction; false (and no entry) when unknown or deleted already.
     */
    markDeleted: (id: string, actor: string): Promise<boolean> =>
      db.$transaction(async (tx) => {
        const deletedAt = new Date();
        const { count } = await tx.message.updateMany({
          where: { id, deletedAt: null },
          data: { deletedAt },
        });
        if (count === 0) return false;
        await appendAuditEntry(tx, messageDeletedEntry({ actor, messageId: id, deletedAt }));
        return true;
      }),

    /**
     * Appends `entry` and runs `apply` (a change outside PostgreSQL, e.g. a mute in Redis)
     * inside one transaction: `apply` failing rolls the entry back; the entry commits only
     * after `apply` succeeded.
     */
    auditedChange: (entry: AuditEntryInput, apply: () => Promise<void>): Promise<void> =>
      db.$transaction(async (tx) => {
        await appendAuditEntry(tx, entry);
        await apply();
      }),

    /** The chat's audit log, newest first, paginated (service-kit audit-log.ts). */
    audit: (query: ListAuditQuery) => listAuditEntries(db, query),

    /** The sender of a message, deleted or not (a moderator mutes after or before deleting). */
    async senderOf(id: string): Promise<MessageSender | null> {
      const row = await db.message.findUnique({
        where: { id },
        select: { senderUserId: true, senderIpHash: true },
      });
      if (row?.senderUserId) return { kind: 'user', userId: row.senderUserId };
      if (row?.senderIpHash) return { kind: 'visitor', ipHash: row.senderIpHash };
      return null;
    },

    /** The like row and the counter move together; the primary key refuses a second like. */
    async like(messageId: string, likerKey: string): Promise<LikeResult> {
      try {
        return await db.$transaction(async (tx) => {
          const exists = await tx.message.findFirst({
            where: { id: messageId, deletedAt: null },
            select: { id: true },
          });
          if (!exists) return { status: 'not_found' } as const;
          await tx.messageLike.create({ data: { messageId, likerKey } });
          const row = await tx.message.update({
            where: { id: messageId },
            data: { likeCount: { increment: 1 } },
            select: { likeCount: true, senderName: true },
          });
          return { status: 'liked', likeCount: row.likeCount, senderName: row.senderName } as const;
        });
      } catch (err) {
        if (isUniqueViolation(err)) return { status: 'duplicate' };
        throw err;
      }
    },
  };
}
export type ChatStore = ReturnType<typeof createChatStore>;
