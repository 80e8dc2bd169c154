// SQL of the public listing (docs/decisions/004-app-store-rules.md): approved apps, optional category / app_type /
// full-text filters, ordered by downloads desc, created_at desc, then id so that offsets
// are stable. Each filter set has a matching index (see the init migration); `q` goes
// through the generated CJK-aware tsvector and its GIN index.
import type { AppCategory, AppType } from '@svc/types';

export interface ListingFilter {
  category?: AppCategory;
  app_type?: AppType;
  /** Free text; blank means no search. */
  q?: string;
}

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

/**
 * The listing fields, in the order of the API (enums as text), columns of table `t` when
 * given. Never the SVG itself (up to 20 KB an app): only whether there is one.
 */
export function listingColumns(t?: string): string {
  const c = t ? `${t}.` : '';
  return (
    `${c}id, ${c}slug, ${c}name, ${c}description, ${c}url, ${c}category::text AS category, ` +
    `${c}app_type::text AS app_type, ${c}open_mode::text AS open_mode, ` +
    `${c}status::text AS status, ${c}downloads, ${c}author_name, ` +
    `${c}icon_gradient_from, ${c}icon_gradient_to, (${c}icon_svg IS NOT NULL) AS has_icon`
  );
}
export const LISTING_COLUMNS = listingColumns();

export function normalizeFilter(filter: ListingFilter): ListingFilter {
  const q = filter.q?.trim();
  return {
    ...(filter.category ? { category: filter.category } : {}),
    ...(filter.app_type ? { app_type: filter.app_type } : {}),
    ...(q ? { q } : {}),
  };
}

export function listingWhere(filter: ListingFilter): SqlQuery {
  const f = normalizeFilter(filter);
  const params: unknown[] = [];
  const conditions = [`status = 'approved'`];
  if (f.category) {
    params.push(f.category);
    conditions.push(`category = $${params.length}::app_category`);
  }
  if (f.app_type) {
    params.push(f.app_type);
    conditions.push(`app_type = $${params.length}::app_type`);
  }
  if (f.q) {
    params.push(f.q);
    // svc_search_query tokenises the query like the document (Latin prefixes, CJK bigrams).
    conditions.push(`search_document @@ svc_search_query($${params.length})`);
  }
  return { sql: conditions.join(' AND '), params };
}

/**
 * One page: its ids first, from the filter's listing index alone (an OFFSET then skips
 * index entries, not table rows: offset 970,000 of 1M apps took 4.2 s reading rows, 0.4 s
 * so), then those rows by primary key, in the same order.
 */
export function listingPageQuery(filter: ListingFilter, limit: number, offset: number): SqlQuery {
  const where = listingWhere(filter);
  const params = [...where.params, limit, offset];
  return {
    sql:
      `SELECT ${listingColumns('a')} FROM (SELECT id FROM apps WHERE ${where.sql} ` +
      `ORDER BY downloads DESC, created_at DESC, id ` +
      `LIMIT $${params.length - 1} OFFSET $${params.length}) page ` +
      `JOIN apps a USING (id) ORDER BY a.downloads DESC, a.created_at DESC, a.id`,
    params,
  };
}

export function listingCountQuery(filter: ListingFilter): SqlQuery {
  const where = listingWhere(filter);
  return {
    sql: `SELECT count(*)::int AS total FROM apps WHERE ${where.sql}`,
    params: where.params,
  };
}

/** Identifies a filter set in the totals cache; equal filters give equal keys. */
export function listingTotalKey(filter: ListingFilter): string {
  const f = normalizeFilter(filter);
  return JSON.stringify([f.category ?? null, f.app_type ?? null, f.q?.toLowerCase() ?? null]);
}
