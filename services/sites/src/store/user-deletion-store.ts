// What sites removes or anonymises when a user deletes their account
// (docs/decisions/035-account-deletion.md), in one transaction: a crash midway leaves
// nothing half done, and auth's retry simply runs it again. Every statement matches only
// the user's rows, so a second run, or a run for a user sites never knew, changes nothing.
import { pseudonymiseAuditEntries } from '@svc/service-kit';
import type { PrismaClient } from '../generated/prisma/client.js';
import { idempotencyScope } from '../domain/idempotency-key.js';

/** How many rows each step changed (for the log line). */
export interface UserDeletionCounts {
  bookmarks: number;
  boosts: number;
  submissions: number;
  sitesSubmitted: number;
  sitesClaimed: number;
  idempotencyKeys: number;
  auditEntries: number;
}

export function createUserDeletionStore(db: PrismaClient) {
  return {
    deleteUser: (userId: string, pseudonym: string): Promise<UserDeletionCounts> =>
      db.$transaction(async (tx) => {
        const bookmarks = await tx.bookmark.deleteMany({ where: { userId } });
        // sites.boost_count (and the hot_score generated from it) was incremented when each
        // boost was given and is never recounted from these rows: the site keeps its score.
        const boosts = await tx.boost.deleteMany({ where: { userId } });
        // submit_count likewise stays: it counts submissions, visitors' included.
        const submissions = await tx.siteSubmission.deleteMany({ where: { userId } });
        // Sites are public content and stay; they no longer point at the person. A claimed
        // site stays claimed (is_claimed, claimed_at), like one claimed without a session.
        const sitesSubmitted = await tx.site.updateMany({
          where: { submittedBy: userId },
          data: { submittedBy: null },
        });
        const sitesClaimed = await tx.site.updateMany({
          where: { ownerId: userId },
          data: { ownerId: null },
        });
        // Their stored answers to POST /api/sites (only the scope names them; the bodies are
        // the public Site shape, which has no owner or submitter).
        const idempotencyKeys = await tx.idempotencyKey.deleteMany({
          where: { scope: idempotencyScope({ userId, ipHash: '' }) },
        });
        // Moderation entries they wrote keep the action, with the pseudonym as actor.
        const auditEntries = await pseudonymiseAuditEntries(tx, userId, pseudonym);
        return {
          bookmarks: bookmarks.count,
          boosts: boosts.count,
          submissions: submissions.count,
          sitesSubmitted: sitesSubmitted.count,
          sitesClaimed: sitesClaimed.count,
          idempotencyKeys: idempotencyKeys.count,
          auditEntries,
        };
      }),
  };
}
export type UserDeletionStore = ReturnType<typeof createUserDeletionStore>;
