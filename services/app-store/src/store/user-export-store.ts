// What app-store holds about one user, read for their data export (docs/decisions/034-data-export.md):
// every table that keeps a user id (apps and their current blocks, API keys, installs,
// reports, appeals, the developer snapshot) and the audit entries they wrote or that are
// about their apps. Never a key's hash nor a reporter's network hash: not even read.
import { listUserAuditEntries } from '@svc/service-kit';
import type { PrismaClient } from '../generated/prisma/client.js';
import { createAuthorStore } from './author-store.js';

const app = { select: { id: true, slug: true, name: true } } as const;

export type AppsUserRows = Awaited<ReturnType<UserExportStore['read']>>;

export function createUserExportStore(db: PrismaClient) {
  const authors = createAuthorStore(db);
  return {
    async read(userId: string) {
      const [developer, apps, apiKeys, installs, reports, appeals] = await Promise.all([
        db.developer.findUnique({
          where: { userId },
          select: { email: true, username: true, updatedAt: true },
        }),
        db.app.findMany({ where: { authorId: userId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
        db.apiKey.findMany({
          where: { authorId: userId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, app },
        }),
        db.install.findMany({
          where: { userId },
          orderBy: [{ createdAt: 'asc' }, { appId: 'asc' }],
          select: { createdAt: true, removedAt: true, app },
        }),
        db.appReport.findMany({
          where: { userId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, reason: true, detail: true, createdAt: true, resolvedAt: true, app },
        }),
        db.appAppeal.findMany({
          where: { authorId: userId },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { id: true, text: true, createdAt: true, closedAt: true, app },
        }),
      ]);
      const [blocks, audit] = await Promise.all([
        authors.blocks(apps),
        listUserAuditEntries(db, userId, { app: apps.map((a) => a.id) }),
      ]);
      return { developer, apps, blocks, apiKeys, installs, reports, appeals, audit };
    },
  };
}
export type UserExportStore = ReturnType<typeof createUserExportStore>;
