// What sites holds about one user, read for their data export (docs/decisions/034-data-export.md):
// every table that keeps a user id (submissions, claimed and first-submitted sites,
// bookmarks, boosts, idempotency keys) and the audit entries they wrote or that are about
// the sites they submitted or claimed.
import { listUserAuditEntries, type AuditEntry } from '@svc/service-kit';
import type { PrismaClient } from '../generated/prisma/client.js';
import { idempotencyScope } from '../domain/idempotency-key.js';

const site = { select: { id: true, url: true, title: true, submittedBy: true } } as const;

export type SitesUserRows = Awaited<ReturnType<UserExportStore['read']>>;

export function createUserExportStore(db: PrismaClient) {
  return {
    async read(userId: string) {
      const [submissions, claims, bookmarks, boosts, idempotencyKeys] = await Promise.all([
        db.siteSubmission.findMany({
          where: { userId },
          orderBy: [{ createdAt: 'asc' }, { siteId: 'asc' }],
          select: { createdAt: true, site },
        }),
        db.site.findMany({
          where: { ownerId: userId },
          orderBy: [{ claimedAt: 'asc' }, { id: 'asc' }],
          select: { id: true, url: true, title: true, claimedAt: true },
        }),
        db.bookmark.findMany({
          where: { userId },
          orderBy: [{ createdAt: 'asc' }, { siteId: 'asc' }],
          select: { createdAt: true, site },
        }),
        db.boost.findMany({
          where: { userId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, day: true, createdAt: true, site },
        }),
        db.idempotencyKey.findMany({
          where: { scope: idempotencyScope({ userId, ipHash: '' }) },
          orderBy: [{ createdAt: 'asc' }, { key: 'asc' }],
          select: { key: true, createdAt: true },
        }),
      ]);
      const theirSites = [...submissions.map((s) => s.site.id), ...claims.map((c) => c.id)];
      const audit: AuditEntry[] = await listUserAuditEntries(db, userId, {
        site: [...new Set(theirSites)],
      });
      return { submissions, claims, bookmarks, boosts, idempotencyKeys, audit };
    },
  };
}
export type UserExportStore = ReturnType<typeof createUserExportStore>;
