// SQL of GET /api/sites, answered by PostgreSQL as JSON text (store/site-list-reader.ts): the
// page's rows in the public Site shape (store/site-record.ts `toSite`, same keys in the same
// order), optional tag and full-text filters, hot or recent order with id as the tie-break
// so pages are stable. Values are always bound parameters ($n), never spliced.
//
// A page is found first by id alone, on the partial indexes of visible sites
// (sites_hot_idx, sites_recent_idx: sort key and id, index-only), then its 61 rows are read
// by primary key: an OFFSET skips index entries, not heap rows, and a cursor starts the scan
// right after the previous page's last site (keyset). One row more than a page is read, so
// whether another page follows is known without counting.
import { SITES_PAGE_SIZE, type SiteSort, type SiteTag } from '@svc/types';
import type { SiteCursor } from './site-cursor.js';

export interface SiteListFilter {
  search?: string;
  tag?: SiteTag;
}

/** Where a page starts: an offset (numbered pages) or after a cursor's site (keyset). */
export type SitePageStart = { offset: number } | { after: SiteCursor };

export interface SiteListPageFilter extends SiteListFilter {
  sort: SiteSort;
  start: SitePageStart;
}

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

/** `timestamp(3)` (UTC) as `Date#toISOString()` writes it: `2026-01-02T03:04:05.678Z`. */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The Site fields of @svc/types, in toSite's order (row_to_json keeps it), over `s`. */
const SITE_JSON_COLUMNS = [
  's.id',
  's.url',
  's.title',
  's.description',
  's.favicon_url',
  's.og_image_url',
  's.domain',
  's.tags',
  's.submit_count',
  's.click_count',
  's.hot_score',
  's.site_type::text AS site_type',
  's.social_platform::text AS social_platform',
  's.social_username',
  's.boost_count',
  's.is_claimed',
  's.is_promoted',
  `${iso('s.first_submitted_at')} AS first_submitted_at`,
  `${iso('s.last_activity_at')} AS last_activity_at`,
].join(', ');

const SORT_COLUMN = { hot: 'hot_score', recent: 'first_submitted_at' } as const;
/** The cursor key of a row, as site-cursor.ts reads it back. */
const CURSOR_KEY = { hot: 's.hot_score::text', recent: iso('s.first_submitted_at') } as const;
const KEY_TYPE = { hot: 'float8', recent: 'timestamp(3)' } as const;

export function siteListWhere(filter: SiteListFilter, params: unknown[] = []): SqlQuery {
  // Sites hidden by a moderator never appear (listing, search, tag filters); the partial
  // listing indexes hold visible sites only.
  const conditions = ['s.hidden_at IS NULL'];
  if (filter.tag) {
    params.push(filter.tag);
    conditions.push(`s.tags @> ARRAY[$${params.length}::text]`);
  }
  if (filter.search) {
    params.push(filter.search);
    // svc_search_query tokenises like the document (Latin prefixes, CJK bigrams).
    conditions.push(`s.search_document @@ svc_search_query($${params.length})`);
  }
  return { sql: conditions.join(' AND '), params };
}

/**
 * One page as a JSON array text (`sites`), whether more follow (`more`) and the cursor key of
 * its last site (`last_key`, `last_id`). Rows are joined with ',' by string_agg rather than
 * json_agg, whose separators differ from JSON.stringify's, so the body is byte for byte what
 * JSON.stringify of toSite() gives.
 */
export function siteListPageQuery(filter: SiteListPageFilter): SqlQuery {
  const where = siteListWhere(filter);
  const params = where.params;
  const column = `s.${SORT_COLUMN[filter.sort]}`;
  let after = '';
  if ('after' in filter.start) {
    // (column DESC, id ASC) after (key, id): the index scan starts at the key.
    params.push(filter.start.after.key, filter.start.after.id);
    const [k, i] = [`$${params.length - 1}::${KEY_TYPE[filter.sort]}`, `$${params.length}`];
    after = ` AND ${column} <= ${k} AND (${column} < ${k} OR s.id > ${i})`;
  }
  params.push(SITES_PAGE_SIZE + 1);
  const limit = `LIMIT $${params.length}`;
  let offset = '';
  if ('offset' in filter.start) {
    params.push(filter.start.offset);
    offset = ` OFFSET $${params.length}`;
  }
  const n = SITES_PAGE_SIZE;
  return {
    sql:
      `SELECT coalesce('[' || string_agg(j, ',' ORDER BY n) FILTER (WHERE n <= ${n}) || ']', '[]') AS sites, ` +
      `count(*) > ${n} AS more, ` +
      `max(k) FILTER (WHERE n = ${n}) AS last_key, max(id) FILTER (WHERE n = ${n}) AS last_id ` +
      `FROM (SELECT row_to_json(v)::text AS j, p.n, ${CURSOR_KEY[filter.sort]} AS k, s.id FROM (` +
      `SELECT m.id, row_number() OVER (ORDER BY m.key DESC, m.id) AS n FROM (` +
      `SELECT s.id, ${column} AS key FROM sites s WHERE ${where.sql}${after} ` +
      `ORDER BY ${column} DESC, s.id ${limit}${offset}) m) p ` +
      `JOIN sites s ON s.id = p.id CROSS JOIN LATERAL (SELECT ${SITE_JSON_COLUMNS}) v) r`,
    params,
  };
}
