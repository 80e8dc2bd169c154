// What account deletion changes in chat's tables (docs/decisions/035-account-deletion.md), in
// one transaction so that a crash midway leaves everything as it was and the retried call
// does it all. Every step matches only what still names the user, so a second run changes
// nothing.
import { DELETED_USER_NAME } from '@svc/types';
import { pseudonymiseAuditEntries } from '@svc/service-kit';
import { userLikerKey } from '../domain/ip-hash.js';
import type { ChatDb } from './store.js';

export interface UserDeletionCounts {
  /** messages now shown as a deleted user's */
  messages: number;
  /** likes removed, each taken off its message's counter */
  likes: number;
  /** audit entries now naming the pseudonym */
  auditEntries: number;
}

export function createUserDeletionStore(db: ChatDb) {
  return {
    deleteUser: (userId: string, pseudonym: string): Promise<UserDeletionCounts> =>
      db.$transaction(async (tx) => {
        // The room is a public conversation others replied to and liked: the messages stay,
        // as written, under a name that points at nobody (the address hash and location
        // went with the name, since they could tell the person apart).
        const { count: messages } = await tx.message.updateMany({
          where: { senderUserId: userId },
          data: {
            senderUserId: null,
            senderName: DELETED_USER_NAME,
            senderLocation: null,
            senderIpHash: null,
          },
        });
        // The counter moves with its rows, as in a like: one row per liker and message, so
        // each liked message loses exactly one.
        const likes = await tx.$executeRaw`
          WITH gone AS (
            DELETE FROM message_likes WHERE liker_key = ${userLikerKey(userId)}
            RETURNING message_id
          )
          UPDATE messages SET like_count = like_count - 1
          FROM gone WHERE messages.id = gone.message_id`;
        const auditEntries = await pseudonymiseAuditEntries(tx, userId, pseudonym);
        return { messages, likes, auditEntries };
      }),
  };
}
export type UserDeletionStore = ReturnType<typeof createUserDeletionStore>;
