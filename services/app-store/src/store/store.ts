// app-store's data access (Prisma on schema `app_store`; raw SQL finds its tables and the
// search function through the connection's search_path).
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { App as AppRow } from '../generated/prisma/client.js';
import { currentTraceparent } from '@svc/tracing';
import type {
  AppBlockedParams,
  AppListItem,
  AppStatus,
  ReportReason,
  SubmitAppBody,
} from '@svc/types';
import { reachesBlockThreshold } from '../domain/report-threshold.js';
import type { AppChanges } from '../domain/app-update.js';
import { listingColumns } from '../domain/listing-query.js';
import { automaticBlockEntry, summariseReportReasons } from '../domain/audit-entry.js';
import { appendAudit, reportReasonCounts } from './audit-store.js';
import { appNoticeJob } from '../domain/author-notice.js';
import { enqueueJob } from './job-outbox.js';

export type AppStoreDb = PrismaClient;
export type { AppRow };

export const isUniqueViolation = (err: unknown): boolean =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

export class SlugTaken extends Error {}

export type ReportResult =
  | { kind: 'not-found' }
  | { kind: 'blocked' }
  | { kind: 'own-app' }
  | { kind: 'duplicate' }
  | {
      kind: 'recorded';
      reportCount: number;
      blockedNow: boolean;
      app: { slug: string; name: string };
    };

export interface KeyIdentity {
  id: string;
  appId: string;
  authorId: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  email: string | null;
  username: string | null;
  /** A withdrawn app's keys are refused even if one escaped the revocation (a race). */
  appStatus: AppStatus;
}

export interface Developer {
  userId: string;
  email: string;
  username: string;
}

export interface AppStoreOptions {
  /**
   * REPORT_DISTINCT_NETWORKS: the block threshold counts distinct reporter networks (reports
   * without a network each count alone) instead of distinct reporters.
   */
  reportDistinctNetworks?: boolean;
}

export function createAppStore(db: AppStoreDb, options: AppStoreOptions = {}) {
  const distinctNetworks = options.reportDistinctNetworks ?? false;
  return {
    findBySlug: (slug: string) => db.app.findUnique({ where: { slug } }),

    findApprovedBySlug: (slug: string) => db.app.findFirst({ where: { slug, status: 'approved' } }),

    /** The icon of an approved app: null when there is no such app; svg null when it has none. */
    findApprovedIcon: (slug: string) =>
      db.app.findFirst({
        where: { slug, status: 'approved' },
        select: { iconSvg: true, updatedAt: true },
      }),

    /**
     * Throws SlugTaken when the slug exists (the unique index decides under a race) or is
     * reserved at `now` by a withdrawn app (docs/decisions/033-withdraw-an-app.md).
     */
    async createApp(
      id: string,
      body: SubmitAppBody,
      author: { userId: string; authorName: string },
      now: Date,
    ): Promise<AppRow> {
      try {
        return await db.$transaction(async (tx) => {
          const created = await tx.app.create({
            data: {
              id,
              slug: body.slug,
              name: body.name,
              url: body.url,
              description: body.description,
              category: body.category,
              appType: body.app_type,
              openMode: body.open_mode,
              chain: body.chain ?? null,
              authorId: author.userId,
              authorName: author.authorName,
            },
          });
          // Read after the insert: an insert that waited on a withdrawal deleting the old row
          // (permanent) sees the reservation that withdrawal committed.
          const reserved = await tx.slugReservation.findFirst({
            where: { slug: body.slug, reservedUntil: { gt: now } },
            select: { slug: true },
          });
          if (reserved) throw new SlugTaken();
          return created;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new SlugTaken();
        throw err;
      }
    },

    updateApp: (id: string, changes: AppChanges) => db.app.update({ where: { id }, data: changes }),

    /**
     * Records one report. The app row is locked (FOR UPDATE) for the whole transaction, so
     * concurrent reports of one app run one after the other: exactly one of them sees the
     * count reach the threshold and blocks the app. report_count is what counts toward the
     * threshold: distinct reporters, or with `reportDistinctNetworks` distinct reporter
     * networks, counted under the same lock (every report is recorded either way). Only open
     * reports count: a moderator's restore or dismissal resolves them and resets report_count
     * (moderation-store.ts, under the same lock), and their reporters may report again.
     */
    async report(
      slug: string,
      userId: string,
      reason: ReportReason,
      detail: string | undefined,
      from: { networkHash: string | null },
    ): Promise<ReportResult> {
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<
          Array<{
            id: string;
            name: string;
            status: string;
            author_id: string;
            report_count: number;
          }>
        >`SELECT id, name, status::text AS status, author_id, report_count FROM apps WHERE slug = ${slug} FOR UPDATE`;
        const app = rows[0];
        // A withdrawn app is gone for everyone but its author (docs/decisions/033-withdraw-an-app.md).
        if (!app || app.status === 'withdrawn') return { kind: 'not-found' };
        if (app.status === 'blocked') return { kind: 'blocked' };
        if (app.author_id === userId) return { kind: 'own-app' };
        const inserted = await tx.$executeRaw`
          INSERT INTO app_reports (app_id, user_id, reason, detail, reporter_network)
          VALUES (${app.id}, ${userId}, ${reason}::report_reason, ${detail ?? null}, ${from.networkHash})
          ON CONFLICT DO NOTHING`;
        if (inserted === 0) return { kind: 'duplicate' };
        let reportCount = app.report_count + 1;
        if (distinctNetworks) {
          // Reports from before the column (no network) each count as their own network.
          const [counted] = await tx.$queryRaw<Array<{ n: number }>>`
            SELECT count(DISTINCT COALESCE(reporter_network, 'user:' || user_id))::int AS n
            FROM app_reports WHERE app_id = ${app.id} AND resolved_at IS NULL`;
          reportCount = counted!.n;
        }
        const blockedNow = reachesBlockThreshold(reportCount);
        await tx.app.update({
          where: { id: app.id },
          data: { reportCount, ...(blockedNow ? { status: 'blocked' as const } : {}) },
        });
        // Chat's announcement commits with the block (outbox), so it cannot be lost.
        if (blockedNow) {
          // The audit entry commits with the block, or neither does.
          const counts = await reportReasonCounts(tx, app.id);
          const auditId = await appendAudit(tx, automaticBlockEntry(app.id, counts));
          // The entry names the block (the author's appeal belongs to it).
          await tx.$executeRaw`UPDATE apps SET block_audit_id = ${BigInt(auditId)} WHERE id = ${app.id}`;
          // The author's e-mail commits with the block too (auth's worker sends it).
          await enqueueJob(
            tx,
            appNoticeJob(auditId, {
              template: 'app_blocked',
              user_id: app.author_id,
              app: { slug, name: app.name },
              by: 'reports',
              reason_summary: summariseReportReasons(counts),
              at: new Date().toISOString(),
            }),
          );
          await tx.systemMessageOutbox.create({
            data: {
              contentKey: 'app_blocked',
              contentParams: { slug, name: app.name } satisfies AppBlockedParams,
              traceparent: currentTraceparent(),
            },
          });
        }
        return { kind: 'recorded', reportCount, blockedNow, app: { slug, name: app.name } };
      });
    },

    myApps: (authorId: string) =>
      db.app.findMany({ where: { authorId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] }),

    async installedApps(userId: string): Promise<AppListItem[]> {
      return db.$queryRawUnsafe<AppListItem[]>(
        `SELECT ${listingColumns('a')} FROM installs i JOIN apps a ON a.id = i.app_id
         WHERE i.user_id = $1 AND i.removed_at IS NULL AND a.status = 'approved'
         ORDER BY i.created_at DESC, a.id`,
        userId,
      );
    },

    /**
     * Installs an approved app; false when there is none with that slug. Atomic in one
     * statement: the first install by a user (the insert) adds one download; installing
     * again, even after an uninstall, does not.
     */
    async install(userId: string, slug: string): Promise<boolean> {
      const rows = await db.$queryRaw<Array<{ found: number }>>`
        WITH app AS (SELECT id FROM apps WHERE slug = ${slug} AND status = 'approved'),
        ins AS (
          INSERT INTO installs (user_id, app_id)
          SELECT ${userId}, id FROM app
          ON CONFLICT (user_id, app_id) DO UPDATE
            SET removed_at = NULL, created_at = CURRENT_TIMESTAMP
            WHERE installs.removed_at IS NOT NULL
          RETURNING app_id, (xmax = 0) AS inserted
        ),
        counted AS (
          UPDATE apps SET downloads = downloads + 1
          FROM ins WHERE apps.id = ins.app_id AND ins.inserted
          RETURNING apps.id
        )
        SELECT (SELECT count(*) FROM app)::int AS found, (SELECT count(*) FROM counted)::int AS counted`;
      return (rows[0]?.found ?? 0) > 0;
    },

    /** Marks the app uninstalled for the user (idempotent; unknown slugs are a no-op). */
    async uninstall(userId: string, slug: string): Promise<void> {
      await db.$executeRaw`
        UPDATE installs SET removed_at = CURRENT_TIMESTAMP
        FROM apps WHERE apps.id = installs.app_id AND apps.slug = ${slug}
          AND installs.user_id = ${userId} AND installs.removed_at IS NULL`;
    },

    async upsertDeveloper(d: Developer): Promise<void> {
      await db.developer.upsert({
        where: { userId: d.userId },
        create: d,
        update: { email: d.email, username: d.username },
      });
    },

    findDeveloper: (userId: string) => db.developer.findUnique({ where: { userId } }),

    createKey: (data: {
      id: string;
      appId: string;
      authorId: string;
      keyHash: string;
      prefix: string;
    }) => db.apiKey.create({ data }),

    listKeys: (appId: string) =>
      db.apiKey.findMany({ where: { appId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] }),

    /** Revokes a key of the app; false when the app has no such key. Idempotent. */
    async revokeKey(appId: string, id: string, now: Date): Promise<boolean> {
      const key = await db.apiKey.findFirst({ where: { id, appId }, select: { revokedAt: true } });
      if (!key) return false;
      if (!key.revokedAt)
        await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
      return true;
    },

    async findKeyByHash(keyHash: string): Promise<KeyIdentity | null> {
      const rows = await db.$queryRaw<
        Array<{
          id: string;
          app_id: string;
          author_id: string;
          revoked_at: Date | null;
          last_used_at: Date | null;
          email: string | null;
          username: string | null;
          app_status: AppStatus;
        }>
      >`SELECT k.id, k.app_id, k.author_id, k.revoked_at, k.last_used_at, d.email, d.username,
          a.status::text AS app_status
        FROM api_keys k JOIN apps a ON a.id = k.app_id
        LEFT JOIN developers d ON d.user_id = k.author_id
        WHERE k.key_hash = ${keyHash}`;
      const r = rows[0];
      if (!r) return null;
      return {
        id: r.id,
        appId: r.app_id,
        authorId: r.author_id,
        revokedAt: r.revoked_at,
        lastUsedAt: r.last_used_at,
        email: r.email,
        username: r.username,
        appStatus: r.app_status,
      };
    },

    /** Conditional, so concurrent requests of one key write at most once per interval. */
    async touchKey(id: string, now: Date, intervalMs: number): Promise<void> {
      await db.apiKey.updateMany({
        where: {
          id,
          OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - intervalMs) } }],
        },
        data: { lastUsedAt: now },
      });
    },
  };
}
export type AppStore = ReturnType<typeof createAppStore>;
