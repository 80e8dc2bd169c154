// Every query of the sites API but the listing (site-list-reader.ts), the sitemap
// (sitemap-reader.ts) and the submission (submission-store.ts), all on a plain pg pool. Boosts are raw SQL because they need what
// Prisma's query API cannot say (advisory locks); the rest uses the generated client.
import { appendAuditEntry, listAuditEntries, newId, type ListAuditQuery } from '@svc/service-kit';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { dailyBoostLimit, decideBoost } from '../domain/boost-allowance.js';
import { siteHiddenEntry, siteRestoredEntry } from '../domain/moderation-audit.js';
import { SITE_ROW_COLUMNS, type SiteRow } from './site-record.js';

const SITE_COLUMNS = Prisma.raw(SITE_ROW_COLUMNS);

/** Timestamps are `timestamp(3)` in UTC (what Prisma writes), whatever the session zone. */
const NOW_UTC = Prisma.raw(`(now() AT TIME ZONE 'UTC')`);

export type BoostOutcome =
  | { kind: 'not-found' }
  | { kind: 'limit-reached'; limit: number }
  | { kind: 'boosted'; site: SiteRow; creditsAfter: number; limit: number };

export type HideOutcome =
  | { kind: 'not-found' }
  | { kind: 'already-hidden' }
  | { kind: 'hidden'; hiddenAt: Date; reason: string };

export type RestoreOutcome = { kind: 'not-found' } | { kind: 'not-hidden' } | { kind: 'restored' };

export type ClaimOutcome =
  { kind: 'not-found' } | { kind: 'already-claimed' } | { kind: 'claimed'; site: SiteRow };

export function createSiteStore(db: PrismaClient) {
  return {
    /** Hidden sites too: callers decide (only moderators see them, `hiddenAt` set). */
    findById: (id: string) => db.site.findUnique({ where: { id } }),

    /** False when no such site, or a hidden one. */
    async recordClick(id: string): Promise<boolean> {
      const n = await db.$executeRaw`
        UPDATE sites SET click_count = click_count + 1, last_activity_at = ${NOW_UTC}
        WHERE id = ${id} AND hidden_at IS NULL`;
      return n > 0;
    },

    /**
     * Counts the caller's boosts of the day and adds one, under a transaction-scoped
     * advisory lock on the caller: parallel boosts by one caller are serialised, so the
     * daily limit holds under concurrency.
     */
    async boost(args: {
      siteId: string;
      caller: { userId: string } | { ipHash: string };
      day: string;
    }): Promise<BoostOutcome> {
      const loggedIn = 'userId' in args.caller;
      const callerKey =
        'userId' in args.caller ? `u:${args.caller.userId}` : `ip:${args.caller.ipHash}`;
      return db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`boost:${callerKey}`}, 0))::text`;
        const exists = await tx.$queryRaw<
          unknown[]
        >`SELECT 1 FROM sites WHERE id = ${args.siteId} AND hidden_at IS NULL`;
        if (exists.length === 0) return { kind: 'not-found' } as const;
        const byCaller =
          'userId' in args.caller
            ? Prisma.sql`user_id = ${args.caller.userId}`
            : Prisma.sql`ip_hash = ${args.caller.ipHash} AND user_id IS NULL`;
        const used = await tx.$queryRaw<Array<{ n: bigint | number }>>`
          SELECT count(*) AS n FROM boosts WHERE ${byCaller} AND day = ${args.day}::date`;
        const limit = dailyBoostLimit(loggedIn);
        const decision = decideBoost(loggedIn, Number(used[0]!.n));
        if (!decision.allowed) return { kind: 'limit-reached', limit } as const;
        await tx.$executeRaw`
          INSERT INTO boosts (id, site_id, user_id, ip_hash, day, created_at)
          VALUES (${newId()},
                  ${args.siteId}, ${'userId' in args.caller ? args.caller.userId : null},
                  ${'ipHash' in args.caller ? args.caller.ipHash : null}, ${args.day}::date, ${NOW_UTC})`;
        const rows = await tx.$queryRaw<SiteRow[]>`
          UPDATE sites s SET boost_count = boost_count + 1, last_activity_at = ${NOW_UTC}
          WHERE id = ${args.siteId} RETURNING ${SITE_COLUMNS}`;
        return {
          kind: 'boosted',
          site: rows[0]!,
          creditsAfter: decision.creditsAfter,
          limit,
        } as const;
      });
    },

    /** Deletes up to `limit` boosts of days before `firstKeptDay` (YYYY-MM-DD); returns how many. */
    async deleteOldBoosts(firstKeptDay: string, limit: number): Promise<number> {
      // No index leads with the day: once swept, the table holds two days, and the first
      // sweep of a long history finds its old rows early in the heap.
      return db.$executeRaw`
        DELETE FROM boosts WHERE ctid = ANY (ARRAY(
          SELECT ctid FROM boosts WHERE day < ${firstKeptDay}::date LIMIT ${limit}))`;
    },

    /** Claims a site once: the conditional UPDATE makes a second (or parallel) claim lose. */
    async claim(siteId: string, ownerId: string | null): Promise<ClaimOutcome> {
      const rows = await db.$queryRaw<SiteRow[]>`
        UPDATE sites s SET is_claimed = true, claimed_at = ${NOW_UTC}, owner_id = ${ownerId},
                           last_activity_at = ${NOW_UTC}
        WHERE id = ${siteId} AND NOT is_claimed AND hidden_at IS NULL RETURNING ${SITE_COLUMNS}`;
      if (rows.length > 0) return { kind: 'claimed', site: rows[0]! };
      const site = await db.site.findFirst({
        where: { id: siteId, hiddenAt: null },
        select: { id: true },
      });
      return site ? { kind: 'already-claimed' } : { kind: 'not-found' };
    },

    async mySubmissions(userId: string): Promise<SiteRow[]> {
      return db.$queryRaw<SiteRow[]>`
        SELECT ${SITE_COLUMNS} FROM site_submissions h JOIN sites s ON s.id = h.site_id
        WHERE h.user_id = ${userId} AND s.hidden_at IS NULL ORDER BY h.created_at DESC, s.id LIMIT 1000`;
    },

    listBookmarks: (userId: string) =>
      db.bookmark.findMany({
        where: { userId },
        orderBy: [{ createdAt: 'desc' }, { siteId: 'asc' }],
        take: 1000,
      }),

    /** null: no such site. `created` false: it was bookmarked already. */
    async addBookmark(userId: string, siteId: string) {
      const rows = await db.$queryRaw<Array<{ siteId: string; createdAt: Date; created: boolean }>>`
        WITH site AS (SELECT id FROM sites WHERE id = ${siteId} AND hidden_at IS NULL),
        ins AS (
          INSERT INTO bookmarks (user_id, site_id, created_at)
          SELECT ${userId}, id, ${NOW_UTC} FROM site
          ON CONFLICT (user_id, site_id) DO NOTHING
          RETURNING site_id, created_at
        )
        SELECT site_id AS "siteId", created_at AS "createdAt", true AS created FROM ins
        UNION ALL
        SELECT b.site_id, b.created_at, false FROM bookmarks b, site
        WHERE b.user_id = ${userId} AND b.site_id = site.id AND NOT EXISTS (SELECT 1 FROM ins)`;
      return rows[0] ?? null;
    },

    async removeBookmark(userId: string, siteId: string): Promise<boolean> {
      const { count } = await db.bookmark.deleteMany({ where: { userId, siteId } });
      return count > 0;
    },

    /**
     * Moderation: hides a visible site (the conditional UPDATE makes a second hide lose) and
     * appends its audit entry in the same transaction (docs/decisions/024-audit-log-per-service.md).
     */
    hide: (id: string, reason: string, actor: string): Promise<HideOutcome> =>
      db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ hiddenAt: Date }>>`
          UPDATE sites SET hidden_at = ${NOW_UTC}, hidden_reason = ${reason}
          WHERE id = ${id} AND hidden_at IS NULL
          RETURNING hidden_at AT TIME ZONE 'UTC' AS "hiddenAt"`;
        if (rows.length > 0) {
          const hiddenAt = rows[0]!.hiddenAt;
          await appendAuditEntry(tx, siteHiddenEntry({ actor, siteId: id, reason, hiddenAt }));
          return { kind: 'hidden', hiddenAt, reason } as const;
        }
        const site = await tx.site.findUnique({ where: { id }, select: { id: true } });
        return site ? ({ kind: 'already-hidden' } as const) : ({ kind: 'not-found' } as const);
      }),

    /**
     * Moderation: shows a hidden site again, with its audit entry in the same transaction
     * (the row is locked so the entry's `before` is the state this restore replaced).
     */
    restore: (id: string, actor: string): Promise<RestoreOutcome> =>
      db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ hiddenAt: Date; hiddenReason: string }>>`
          WITH old AS (
            SELECT id, hidden_at, hidden_reason FROM sites
            WHERE id = ${id} AND hidden_at IS NOT NULL FOR UPDATE
          )
          UPDATE sites s SET hidden_at = NULL, hidden_reason = NULL FROM old WHERE s.id = old.id
          RETURNING old.hidden_at AT TIME ZONE 'UTC' AS "hiddenAt", old.hidden_reason AS "hiddenReason"`;
        const old = rows[0];
        if (old) {
          await appendAuditEntry(
            tx,
            siteRestoredEntry({
              actor,
              siteId: id,
              wasHiddenAt: old.hiddenAt,
              wasHiddenReason: old.hiddenReason,
            }),
          );
          return { kind: 'restored' } as const;
        }
        const site = await tx.site.findUnique({ where: { id }, select: { id: true } });
        return site ? ({ kind: 'not-hidden' } as const) : ({ kind: 'not-found' } as const);
      }),

    /** The audit log of site moderation, newest first, paginated (service-kit audit-log.ts). */
    audit: (query: ListAuditQuery) => listAuditEntries(db, query),

    /** Sites still pending a scrape since before `olderThan` (re-queue sweep). */
    pendingScrapes: (olderThan: Date, limit: number) =>
      db.site.findMany({
        where: { scrapeStatus: 'pending', firstSubmittedAt: { lt: olderThan } },
        select: { id: true },
        orderBy: { firstSubmittedAt: 'asc' },
        take: limit,
      }),

    /** Scraped (or given up on) but never tagged: every tagging gives at least one tag. */
    untaggedSites: (olderThan: Date, limit: number) =>
      db.site.findMany({
        where: {
          scrapeStatus: { not: 'pending' },
          tags: { isEmpty: true },
          firstSubmittedAt: { lt: olderThan },
        },
        select: { id: true },
        orderBy: { firstSubmittedAt: 'asc' },
        take: limit,
      }),
  };
}
export type SiteStore = ReturnType<typeof createSiteStore>;
