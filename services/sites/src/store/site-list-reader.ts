// GET /api/sites reads go straight to a pg Pool, not through Prisma: on 100k sites a
// 60-row page cost ~1.8 ms of Node CPU through Prisma's raw query path, which capped the
// uncached listing near 500 req/s. PostgreSQL builds the page's JSON (domain/site-list-query.ts),
// so Node neither parses 60 rows nor re-serialises them; statements are prepared once per
// connection. Same pattern as app-store's listing-reader.ts.
import pg from 'pg';
import { countOrEstimate, type MatchTotal } from '@svc/service-kit';
import { encodeSiteCursor } from '../domain/site-cursor.js';
import {
  siteListPageQuery,
  siteListWhere,
  type SiteListFilter,
  type SiteListPageFilter,
  type SqlQuery,
} from '../domain/site-list-query.js';

export interface SitePage {
  /** The page as a JSON array of Site objects (text, ready to embed in the body). */
  sitesJson: string;
  /** Whether a site follows the page (one more row was read). */
  hasMore: boolean;
  /** The `cursor` of the next page, null on the last one. */
  nextCursor: string | null;
}

export interface SiteListReader {
  page(filter: SiteListPageFilter): Promise<SitePage>;
  /** Exact up to EXACT_TOTAL_LIMIT matches, else the planner's estimate (the kit's match-total.ts). */
  total(filter: SiteListFilter): Promise<MatchTotal>;
}

/** Prepared-statement name for a SQL text (same text, same name, on every connection). */
function prepared(prefix: string, q: SqlQuery): pg.QueryConfig {
  let h = 0;
  for (let i = 0; i < q.sql.length; i++) h = (Math.imul(31, h) + q.sql.charCodeAt(i)) | 0;
  return { name: `${prefix}_${(h >>> 0).toString(36)}`, text: q.sql, values: q.params };
}

interface PageRow {
  sites: string;
  more: boolean;
  last_key: string | null;
  last_id: string | null;
}

export function createSiteListReader(pool: pg.Pool): SiteListReader {
  return {
    async page(filter) {
      const res = await pool.query<PageRow>(prepared('sites_page', siteListPageQuery(filter)));
      const row = res.rows[0]!;
      const nextCursor =
        row.more && row.last_key !== null && row.last_id !== null
          ? encodeSiteCursor({ sort: filter.sort, key: row.last_key, id: row.last_id })
          : null;
      return { sitesJson: row.sites, hasMore: row.more, nextCursor };
    },
    total(filter) {
      const where = siteListWhere(filter);
      return countOrEstimate(pool, 'sites_count', `sites s WHERE ${where.sql}`, where.params);
    },
  };
}
