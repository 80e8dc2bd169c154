// chat's tables through Prisma: newest messages, inserts, and one like per liker.
import type { ChatMessage, ChatMessageType } from '@svc/types';
import {
  appendAuditEntry,
  listAuditEntries,
  type AuditEntryInput,
  type AuditPage,
  type ListAuditQuery,
} from '@svc/service-kit';
import {
  messageDeletedEntry,
  senderOfRow,
  senderTargetId,
  type MessageSender,
} from '../domain/moderation-audit.js';
import { removedByRetention } from '../domain/retention.js';
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
const isForeignKeyViolation = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2003';

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
     * Appends a sender's audit `entry` and runs `apply` (the mute in Redis) inside one
     * transaction, while message `messageId` still names `sender`: `apply` failing rolls the
     * entry back, and the entry commits only after `apply` succeeded. false (nothing written)
     * when the message no longer names that sender. The row is read FOR SHARE: an account
     * deletion rewriting it either waits for this commit, then pseudonymises the new entry and
     * removes the mute, or commits first and this sees the sender gone.
     */
    auditedSenderChange: (
      messageId: string,
      sender: MessageSender,
      entry: AuditEntryInput,
      apply: () => Promise<void>,
    ): Promise<boolean> =>
      db.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<
          Array<{ senderUserId: string | null; senderIpHash: string | null }>
        >`
          SELECT sender_user_id AS "senderUserId", sender_ip_hash AS "senderIpHash"
          FROM messages WHERE id = ${messageId} FOR SHARE`;
        const current = row ? senderOfRow(row) : null;
        if (!current || senderTargetId(current) !== senderTargetId(sender)) return false;
        await appendAuditEntry(tx, entry);
        await apply();
        return true;
      }),

    /**
     * The chat's audit log, newest first, paginated (service-kit audit-log.ts). An entry whose
     * message is gone is marked as removed by retention (the entry itself stays).
     */
    async audit(query: ListAuditQuery): Promise<AuditPage> {
      const page = await listAuditEntries(db, query);
      const ids = page.items.filter((e) => e.targetType === 'message').map((e) => e.targetId);
      if (ids.length === 0) return page;
      const rows = await db.message.findMany({
        where: { id: { in: [...new Set(ids)] } },
        select: { id: true },
      });
      const gone = removedByRetention(page.items, new Set(rows.map((r) => r.id)));
      return {
        ...page,
        items: page.items.map((e) =>
          e.targetType === 'message' && gone.has(e.targetId)
            ? { ...e, targetRemoved: 'retention' as const }
            : e,
        ),
      };
    },

    /**
     * The sender of a message, deleted or not (a moderator mutes after or before deleting):
     * null for an unknown message, 'none' for one without a sender (senderOfRow).
     */
    async senderOf(id: string): Promise<MessageSender | 'none' | null> {
      const row = await db.message.findUnique({
        where: { id },
        select: { senderUserId: true, senderIpHash: true },
      });
      return row ? (senderOfRow(row) ?? 'none') : null;
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
        // The retention sweep deleted the message while the like's row waited for it.
        if (isForeignKeyViolation(err)) return { status: 'not_found' };
        throw err;
      }
    },
  };
}
export type ChatStore = ReturnType<typeof createChatStore>;
