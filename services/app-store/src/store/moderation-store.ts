// Moderators' data access (docs/decisions/009-moderation-audit-log.md): the report queue, an app's report history
// and the actions on an app. An action runs under the same app-row lock as the report path
// (store.ts `report`), so a concurrent report sees the app either before or after it, and
// its audit entry commits with it or not at all.
import { currentTraceparent } from '@svc/tracing';
import type { AppBlockedParams, AppStatus, ReportReason } from '@svc/types';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { moderatorEntry } from '../domain/audit-entry.js';
import { appendAudit, listAudit, reportReasonCounts, type ListAuditQuery } from './audit-store.js';
import { appNoticeJob } from '../domain/author-notice.js';
import { decideModeration, type ModerationAction } from '../domain/moderation.js';
import { enqueueJob } from './job-outbox.js';

export interface QueueItem {
  slug: string;
  name: string;
  status: AppStatus;
  openReporters: number;
  reasons: Partial<Record<ReportReason, number>>;
  latestReportAt: Date | null;
  appeal: { text: string; createdAt: Date } | null;
}

export type ModerationResult =
  | { kind: 'not-found' }
  | { kind: 'conflict'; message: string }
  | {
      kind: 'done';
      slug: string;
      before: AppStatus;
      after: AppStatus;
      resolvedReports: number;
      auditId: string;
    };

export function createModerationStore(db: PrismaClient) {
  return {
    /**
     * Apps with open reports, and blocked apps with an open appeal (listed even without open
     * reports), the most recent report or appeal first; withdrawn apps are left out.
     */
    async queue(page: {
      limit: number;
      offset: number;
    }): Promise<{ items: QueueItem[]; total: number }> {
      const listed = Prisma.sql`WITH open AS (
          SELECT app_id, reason, count(*)::int AS n, max(created_at) AS latest
          FROM app_reports WHERE resolved_at IS NULL GROUP BY app_id, reason
        ), reported AS (
          SELECT app_id, sum(n)::int AS open_reporters,
            jsonb_object_agg(reason::text, n) AS reasons, max(latest) AS latest
          FROM open GROUP BY app_id
        ), appealed AS (
          SELECT app_id, text, created_at FROM app_appeals WHERE closed_at IS NULL
        ), listed AS (
          SELECT COALESCE(r.app_id, p.app_id) AS app_id, r.open_reporters, r.reasons, r.latest,
            p.text AS appeal_text, p.created_at AS appeal_at
          FROM reported r FULL JOIN appealed p ON p.app_id = r.app_id
          -- A withdrawn app leaves nothing to decide (its reports stay in its history).
          WHERE NOT EXISTS (
            SELECT 1 FROM apps w WHERE w.id = COALESCE(r.app_id, p.app_id) AND w.status = 'withdrawn'
          )
        )`;
      const rows = await db.$queryRaw<
        Array<{
          slug: string;
          name: string;
          status: AppStatus;
          open_reporters: number | null;
          reasons: Record<string, number> | null;
          latest: Date | null;
          appeal_text: string | null;
          appeal_at: Date | null;
        }>
      >`${listed}
        SELECT a.slug, a.name, a.status::text AS status, l.open_reporters, l.reasons, l.latest,
          l.appeal_text, l.appeal_at
        FROM listed l JOIN apps a ON a.id = l.app_id
        ORDER BY GREATEST(l.latest, l.appeal_at) DESC, a.id
        LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [counted] = await db.$queryRaw<Array<{ n: number }>>`${listed}
        SELECT count(*)::int AS n FROM listed`;
      return {
        items: rows.map((r) => ({
          slug: r.slug,
          name: r.name,
          status: r.status,
          // One open report per user per app (the partial unique index): reports = reporters.
          openReporters: r.open_reporters ?? 0,
          reasons: (r.reasons ?? {}) as QueueItem['reasons'],
          latestReportAt: r.latest,
          appeal:
            r.appeal_text !== null && r.appeal_at !== null
              ? { text: r.appeal_text, createdAt: r.appeal_at }
              : null,
        })),
        total: counted?.n ?? 0,
      };
    },

    /** The app and its reports, newest first; null when there is no such app. */
    async history(slug: string) {
      const app = await db.app.findUnique({
        where: { slug },
        select: { id: true, slug: true, name: true, status: true },
      });
      if (!app) return null;
      const reports = await db.appReport.findMany({
        where: { appId: app.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        select: { id: true, reason: true, detail: true, createdAt: true, resolvedAt: true },
      });
      const appeals = await db.appAppeal.findMany({
        where: { appId: app.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        select: { id: true, text: true, createdAt: true, closedAt: true },
      });
      return { app, reports, appeals };
    },

    /** A moderator's restore, block or dismissal, with its audit entry, under the row lock. */
    async moderate(
      slug: string,
      action: ModerationAction,
      actor: string,
      reason: string | undefined,
    ): Promise<ModerationResult> {
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<
          Array<{ id: string; name: string; status: AppStatus; author_id: string }>
        >`SELECT id, name, status::text AS status, author_id FROM apps WHERE slug = ${slug} FOR UPDATE`;
        const app = rows[0];
        if (!app) return { kind: 'not-found' };
        const decision = decideModeration(action, app.status);
        if (decision.kind === 'conflict') return decision;
        const open = await reportReasonCounts(tx, app.id);
        const openReports = Object.values(open).reduce((sum, n) => sum + (n ?? 0), 0);
        let resolvedReports = 0;
        if (decision.resolvesReports) {
          resolvedReports = await tx.$executeRaw`
            UPDATE app_reports SET resolved_at = CURRENT_TIMESTAMP
            WHERE app_id = ${app.id} AND resolved_at IS NULL`;
        }
        const auditId = await appendAudit(
          tx,
          moderatorEntry({
            actor,
            action: decision.audit,
            appId: app.id,
            reason,
            dismissed: open,
            before: { status: app.status, openReports },
            after: {
              status: decision.after,
              openReports: decision.resolvesReports ? 0 : openReports,
            },
          }),
        );
        const blocks = decision.after === 'blocked' && app.status !== 'blocked';
        const restores = decision.after !== 'blocked' && app.status === 'blocked';
        await tx.app.update({
          where: { id: app.id },
          data: {
            status: decision.after,
            ...(decision.resolvesReports ? { reportCount: 0 } : {}),
            // The block is named by its audit entry (an appeal belongs to it); a restore ends it.
            ...(blocks ? { blockAuditId: BigInt(auditId) } : {}),
            ...(restores ? { blockAuditId: null } : {}),
          },
        });
        // A restore closes the appeal of the block it ends.
        if (restores)
          await tx.appAppeal.updateMany({
            where: { appId: app.id, closedAt: null },
            data: { closedAt: new Date() },
          });
        // The author's e-mail about the block or restore commits with it (job outbox).
        if (blocks || restores)
          await enqueueJob(
            tx,
            appNoticeJob(
              auditId,
              blocks
                ? {
                    template: 'app_blocked',
                    user_id: app.author_id,
                    app: { slug, name: app.name },
                    by: 'moderator',
                    reason_summary: reason?.trim() ?? '',
                    at: new Date().toISOString(),
                  }
                : {
                    template: 'app_restored',
                    user_id: app.author_id,
                    app: { slug, name: app.name },
                    reason_summary: reason?.trim() ?? '',
                    at: new Date().toISOString(),
                  },
            ),
          );
        if (decision.after === 'blocked') {
          // As for an automatic block: chat's announcement commits with it (outbox).
          await tx.systemMessageOutbox.create({
            data: {
              contentKey: 'app_blocked',
              contentParams: { slug, name: app.name } satisfies AppBlockedParams,
              traceparent: currentTraceparent(),
            },
          });
        }
        return {
          kind: 'done',
          slug,
          before: app.status,
          after: decision.after,
          resolvedReports,
          auditId,
        };
      });
    },

    audit: (query: ListAuditQuery) => listAudit(db, query),
  };
}
export type ModerationStore = ReturnType<typeof createModerationStore>;
