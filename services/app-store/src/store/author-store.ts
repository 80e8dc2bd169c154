// The author's side of moderation (docs/decisions/025-block-appeals-and-notices.md): the block of each
// of their apps (when, by reports or a moderator, why, their appeal), the appeal itself, and
// the audit entries about their app. Reporters are never named: a block by reports is
// explained by its audit entry's reason, the reports counted per reason.
import type { AppStatus } from '@svc/types';
import type { PrismaClient } from '../generated/prisma/client.js';
import { appealEntry } from '../domain/audit-entry.js';
import { appendAudit, listAudit, type AuditPage } from './audit-store.js';
import { ALREADY_APPEALED, blockKey, blockedBy, decideAppeal } from '../domain/appeal.js';
import type { BlockView } from '../domain/app-record.js';
import { isUniqueViolation } from './store.js';

export type BlockInfo = BlockView;

export type AppealResult =
  | { kind: 'not-found' }
  | { kind: 'conflict'; message: string }
  | { kind: 'appealed'; slug: string; text: string; createdAt: Date };

export function createAuthorStore(db: PrismaClient) {
  return {
    /**
     * The current block of each blocked app among `apps` (by app id): its audit entry and the
     * appeal of that block. An app blocked before blocks were recorded shows its last update
     * as the time and its open reports as the reason.
     */
    async blocks(
      apps: Array<{ id: string; status: AppStatus; blockAuditId: bigint | null; updatedAt: Date }>,
    ): Promise<Map<string, BlockInfo>> {
      const blocked = apps.filter((a) => a.status === 'blocked');
      const out = new Map<string, BlockInfo>();
      if (blocked.length === 0) return out;
      const auditIds = blocked.flatMap((a) => (a.blockAuditId === null ? [] : [a.blockAuditId]));
      const [entries, appeals] = await Promise.all([
        db.auditLog.findMany({
          where: { id: { in: auditIds } },
          select: { id: true, at: true, actor: true, reason: true },
        }),
        db.appAppeal.findMany({
          where: { appId: { in: blocked.map((a) => a.id) } },
          select: { appId: true, blockAuditId: true, text: true, createdAt: true },
        }),
      ]);
      const entryById = new Map(entries.map((e) => [e.id, e]));
      for (const app of blocked) {
        const entry = app.blockAuditId === null ? undefined : entryById.get(app.blockAuditId);
        const key = blockKey(app.blockAuditId);
        const appeal = appeals.find((p) => p.appId === app.id && p.blockAuditId === key);
        out.set(app.id, {
          blockedAt: entry?.at ?? app.updatedAt,
          by: entry ? blockedBy(entry.actor) : 'reports',
          reasonSummary: entry?.reason ?? '',
          appeal: appeal ? { text: appeal.text, createdAt: appeal.createdAt } : null,
        });
      }
      return out;
    },

    /**
     * The author's appeal of the current block, with its audit entry (app.appealed), under
     * the app row's lock: once per block (the unique index on app_id, block_audit_id settles
     * a race the same way).
     */
    async appeal(slug: string, authorId: string, text: string): Promise<AppealResult> {
      try {
        return await db.$transaction(async (tx) => {
          const rows = await tx.$queryRaw<
            Array<{
              id: string;
              author_id: string;
              status: AppStatus;
              block_audit_id: bigint | null;
            }>
          >`SELECT id, author_id, status::text AS status, block_audit_id FROM apps
            WHERE slug = ${slug} FOR UPDATE`;
          const row = rows[0];
          const app = row && {
            authorId: row.author_id,
            status: row.status,
            blockAuditId: row.block_audit_id === null ? null : BigInt(row.block_audit_id),
          };
          const existing =
            row && app?.status === 'blocked'
              ? await tx.appAppeal.findUnique({
                  where: {
                    appId_blockAuditId: { appId: row.id, blockAuditId: blockKey(app.blockAuditId) },
                  },
                  select: { id: true },
                })
              : null;
          const decision = decideAppeal(app, authorId, existing !== null);
          if (decision.kind !== 'appeal') return decision;
          const created = await tx.appAppeal.create({
            data: { appId: row!.id, authorId, blockAuditId: decision.blockKey, text },
            select: { createdAt: true },
          });
          await appendAudit(tx, appealEntry({ authorId, appId: row!.id, text }));
          return { kind: 'appealed', slug, text, createdAt: created.createdAt };
        });
      } catch (err) {
        if (isUniqueViolation(err)) return { kind: 'conflict', message: ALREADY_APPEALED };
        throw err;
      }
    },

    /** The audit entries about the author's app; null when it is not theirs (or unknown). */
    async audit(
      slug: string,
      authorId: string,
      page: { cursor?: string; limit?: number },
    ): Promise<{ page: AuditPage; authorId: string } | null> {
      const app = await db.app.findUnique({
        where: { slug },
        select: { id: true, authorId: true },
      });
      if (!app || app.authorId !== authorId) return null;
      return {
        page: await listAudit(db, { targetType: 'app', targetId: app.id, ...page }),
        authorId,
      };
    },
  };
}
export type AuthorStore = ReturnType<typeof createAuthorStore>;
