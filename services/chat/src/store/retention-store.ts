// The retention sweep's SQL (docs/decisions/036-chat-retention.md). Each call is one statement
// outside any explicit transaction, so it commits alone and holds its row locks for one batch.
import type { ChatDb } from './store.js';

export function createRetentionStore(db: ChatDb) {
  return {
    /**
     * Deletes up to `limit` of the oldest messages created before `cutoff`, their likes with
     * them (message_likes' foreign key cascades); how many messages went. The ids come from
     * messages_recent_idx (created_at DESC, id) read backwards. Rows another transaction
     * holds (a like or a moderator's delete in progress, a second sweep in another replica)
     * are skipped, left to the next batch or sweep, rather than waited for.
     */
    deleteOlderThan: (cutoff: Date, limit: number): Promise<number> =>
      db.$executeRaw`
        WITH doomed AS (
          SELECT id FROM messages
          WHERE created_at < ${cutoff}
          ORDER BY created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        DELETE FROM messages m USING doomed WHERE m.id = doomed.id`,

    /** When the oldest message was created (null: none); one step down the same index. */
    async oldestCreatedAt(): Promise<Date | null> {
      const row = await db.message.findFirst({
        orderBy: { createdAt: 'asc' },
        select: { createdAt: true },
      });
      return row?.createdAt ?? null;
    },
  };
}
export type RetentionStore = ReturnType<typeof createRetentionStore>;
