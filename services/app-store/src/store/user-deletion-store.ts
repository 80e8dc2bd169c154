// What account deletion does to app-store's tables (docs/decisions/035-account-deletion.md),
// in one transaction, so a call that fails midway changed nothing and auth's retry redoes it
// all; a second call finds nothing left and changes nothing.
//   - the user's apps: withdrawn and deleted for good, each as the author's own deletion does
//     (docs/decisions/033-withdraw-an-app.md): their keys, installs, reports and appeals go
//     by cascade, their slugs stay reserved (slug_reservations holds no user id), audit
//     entries app.withdrawn and app.deleted by the user are appended,
//   - the user's other API keys, appeals, installs and developer snapshot: deleted (an
//     install's download stays counted: downloads are a public aggregate),
//   - their reports of others' apps: kept for moderation, the reporter replaced by the
//     pseudonym (unique per deleted user, so one open report per reporter still holds),
//   - the notify-email jobs still waiting in job_outbox for them: deleted,
//   - the audit entries naming them (as actor or inside before/after): pseudonymised, last,
//     so the entries the deletion itself appended are included.
import { pseudonymiseAuditEntries } from '@svc/service-kit';
import type { PrismaClient } from '../generated/prisma/client.js';
import { AUTHOR_WITHDRAWAL_TIMEOUT_MS, withdrawAuthorAppsIn } from './withdrawal-store.js';

export interface UserDeletion {
  /** apps deleted for good */
  apps: number;
  /** whether one of them was listed (the listing caches must be cleared after the commit) */
  wasListed: boolean;
  apiKeys: number;
  appeals: number;
  installs: number;
  developer: boolean;
  reports: number;
  jobs: number;
  auditEntries: number;
}

export function createUserDeletionStore(db: PrismaClient) {
  return {
    async deleteUser(userId: string, pseudonym: string, now: Date): Promise<UserDeletion> {
      return db.$transaction(
        async (tx) => {
          const apps = await withdrawAuthorAppsIn(tx, userId, { permanent: true, now });
          // Keys and appeals of an app by someone else (none are made today) go too.
          const apiKeys = await tx.apiKey.deleteMany({ where: { authorId: userId } });
          const appeals = await tx.appAppeal.deleteMany({ where: { authorId: userId } });
          const installs = await tx.install.deleteMany({ where: { userId } });
          const developer = await tx.developer.deleteMany({ where: { userId } });
          const reports = await tx.appReport.updateMany({
            where: { userId },
            data: { userId: pseudonym },
          });
          // A notice about an app that no longer exists, to an account that no longer exists.
          const jobs = await tx.$executeRaw`
            DELETE FROM job_outbox WHERE payload->>'user_id' = ${userId}`;
          const auditEntries = await pseudonymiseAuditEntries(tx, userId, pseudonym);
          return {
            apps: apps.apps,
            wasListed: apps.wasListed,
            apiKeys: apiKeys.count,
            appeals: appeals.count,
            installs: installs.count,
            developer: developer.count > 0,
            reports: reports.count,
            jobs,
            auditEntries,
          };
        },
        { timeout: AUTHOR_WITHDRAWAL_TIMEOUT_MS },
      );
    },
  };
}
export type UserDeletionStore = ReturnType<typeof createUserDeletionStore>;
