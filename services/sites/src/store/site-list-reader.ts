// GET /api/sites reads go straight to a pg Pool, not through Prisma: on 100k sites a
// 60-row page cost ~1.8 ms of Node CPU through Prisma's raw query path, which capped the
// uncached listing near 500 req/s. PostgreSQL builds the page's JSON (domain/site-list-query.ts),
// so Node neither parses 60 rows nor re-serialises them; statements are prepared once per
// connection. Same pattern as app-store's listing-reader.ts.
import pg from 'pg';
import {
  siteListCountQuery,
  siteListPageQuery,
  type SiteListFilter,
  type SiteListPageFilter,
  type SqlQuery,
} from '../domain/site-list-query.js';

export interface SiteListReader {
  /** The page as a JSON array of Site objects (text, ready to embed in the body). */
  pageJson(filter: SiteListPageFilter): Promise<string>;
  count(filter: SiteListFilter): Promise<number>;
}

/** Prepared-statement name for a SQL text (same text, same name, on every connection). */
function prepared(prefix: string, q: SqlQuery): pg.QueryConfig {
  let h = 0;
  for (let i = 0; i < q.sql.length; i++) h = (Math.imul(31, h) + q.sql.charCodeAt(i)) | 0;
  return { name: `${prefix}_${(h >>> 0).toString(36)}`, text: q.sql, values: q.params };
}

export function createSiteListReader(pool: pg.Pool): SiteListReader {
  return {
    async pageJson(filter) {
      const res = await pool.query<{ sites: string }>(
        prepared('sites_page', siteListPageQuery(filter)),
      );
      return res.rows[0]!.sites;
    },
    async count(filter) {
      const res = await pool.query<{ total: number }>(
        prepared('sites_count', siteListCountQuery(filter)),
      );
      return res.rows[0]!.total;
    },
  };
}
