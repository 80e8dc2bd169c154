// SQL of GET /api/sites, answered by PostgreSQL as JSON text (store/site-list-reader.ts): the
// page's rows in the public Site shape (store/site-record.ts `toSite`, same keys in the same
// order), optional tag and full-text filters, hot or recent order with id as the tie-break
// so offsets are stable. Values are always bound parameters ($n), never spliced.
import { SITES_PAGE_SIZE, type SiteSort, type SiteTag } from '@svc/types';

export interface SiteListFilter {
  search?: string;
  tag?: SiteTag;
}

export interface SiteListPageFilter extends SiteListFilter {
  sort: SiteSort;
  page: number;
}

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

/** `timestamp(3)` (UTC) as `Date#toISOString()` writes it: `2026-01-02T03:04:05.678Z`. */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The Site fields of @svc/types, in toSite's order (row_to_json keeps it), over `p`. */
const SITE_JSON_COLUMNS = [
  'p.id',
  'p.url',
  'p.title',
  'p.description',
  'p.favicon_url',
  'p.og_image_url',
  'p.domain',
  'p.tags',
  'p.submit_count',
  'p.click_count',
  'p.hot_score',
  'p.site_type::text AS site_type',
  'p.social_platform::text AS social_platform',
  'p.social_username',
  'p.boost_count',
  'p.is_claimed',
  'p.is_promoted',
  `${iso('p.first_submitted_at')} AS first_submitted_at`,
  `${iso('p.last_activity_at')} AS last_activity_at`,
].join(', ');

/** Plain columns for the LIMIT/OFFSET scan: rows an OFFSET skips are projected too. */
const SITE_RAW_COLUMNS =
  's.id, s.url, s.title, s.description, s.favicon_url, s.og_image_url, s.domain, s.tags, ' +
  's.submit_count, s.click_count, s.hot_score, s.site_type, s.social_platform, ' +
  's.social_username, s.boost_count, s.is_claimed, s.is_promoted, s.first_submitted_at, ' +
  's.last_activity_at';

export function siteListWhere(filter: SiteListFilter): SqlQuery {
  const params: unknown[] = [];
  // Sites hidden by a moderator never appear (listing, search, tag filters).
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
 * One page as a JSON array text (`sites`). Rows are joined with ',' by string_agg rather
 * than json_agg, whose separators differ from JSON.stringify's, so the body is byte for
 * byte what the Prisma path produced. Served by sites_hot_idx / sites_recent_idx.
 */
export function siteListPageQuery(filter: SiteListPageFilter): SqlQuery {
  const where = siteListWhere(filter);
  const order =
    filter.sort === 'recent' ? 's.first_submitted_at DESC, s.id' : 's.hot_score DESC, s.id';
  const params = [...where.params, SITES_PAGE_SIZE, (filter.page - 1) * SITES_PAGE_SIZE];
  return {
    sql:
      `SELECT coalesce('[' || string_agg(row_to_json(t)::text, ',') || ']', '[]') AS sites FROM (` +
      `SELECT ${SITE_JSON_COLUMNS} FROM (` +
      `SELECT ${SITE_RAW_COLUMNS} FROM sites s WHERE ${where.sql} ORDER BY ${order} ` +
      `LIMIT $${params.length - 1} OFFSET $${params.length}) p) t`,
    params,
  };
}

export function siteListCountQuery(filter: SiteListFilter): SqlQuery {
  const where = siteListWhere(filter);
  return {
    sql: `SELECT count(*)::int AS total FROM sites s WHERE ${where.sql}`,
    params: where.params,
  };
}
