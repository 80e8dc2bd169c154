// Moderators' data access (docs/decisions.md §9): the report queue, an app's report history
// and the actions on an app. An action runs under the same app-row lock as the report path
// (store.ts `report`), so a concurrent report sees the app either before or after it, and
// its audit entry commits with it or not at all.
import { currentTraceparent } from '@svc/service-kit';
import type { AppBlockedParams, AppStatus, ReportReason } from '@svc/types';
import type { PrismaClient } from './generated/prisma/client.js';
import {
  appendAudit,
  listAudit,
  moderatorEntry,
  reportReasonCounts,
  type ListAuditQuery,
} from './audit/index.js';
import { decideModeration, type ModerationAction } from './domain/moderation.js';

export interface QueueItem {
  slug: string;
  name: string;
  status: AppStatus;
  openReporters: number;
  reasons: Partial<Record<ReportReason, number>>;
  latestReportAt: Date;
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
    /** Apps with open reports, the most recently reported first. */
    async queue(page: {
      limit: number;
      offset: number;
    }): Promise<{ items: QueueItem[]; total: number }> {
      const rows = await db.$queryRaw<
        Array<{
          slug: string;
          name: string;
          status: AppStatus;
          open_reporters: number;
          reasons: Record<string, number>;
          latest: Date;
        }>
      >`WITH open AS (
          SELECT app_id, reason, count(*)::int AS n, max(created_at) AS latest
          FROM app_reports WHERE resolved_at IS NULL GROUP BY app_id, reason
        )
        SELECT a.slug, a.name, a.status::text AS status, sum(o.n)::int AS open_reporters,
          jsonb_object_agg(o.reason::text, o.n) AS reasons, max(o.latest) AS latest
        FROM open o JOIN apps a ON a.id = o.app_id
        GROUP BY a.id ORDER BY latest DESC, a.id LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [counted] = await db.$queryRaw<Array<{ n: number }>>`
        SELECT count(DISTINCT app_id)::int AS n FROM app_reports WHERE resolved_at IS NULL`;
      return {
        items: rows.map((r) => ({
          slug: r.slug,
          name: r.name,
          status: r.status,
          // One open report per user per app (the partial unique index): reports = reporters.
          openReporters: r.open_reporters,
          reasons: r.reasons as QueueItem['reasons'],
          latestReportAt: r.latest,
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
      return { app, reports };
    },

    /** A moderator's restore, block or dismissal, with its audit entry, under the row lock. */
    async moderate(
      slug: string,
      action: ModerationAction,
      actor: string,
      reason: string | undefined,
    ): Promise<ModerationResult> {
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ id: string; name: string; status: AppStatus }>>`
          SELECT id, name, status::text AS status FROM apps WHERE slug = ${slug} FOR UPDATE`;
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
        await tx.app.update({
          where: { id: app.id },
          data: {
            status: decision.after,
            ...(decision.resolvesReports ? { reportCount: 0 } : {}),
          },
        });
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
