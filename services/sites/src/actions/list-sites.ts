// GET /api/sites as a use case: a page of sites plus the match count, each behind its
// cache, serialised once per cached page. The page's JSON is built by PostgreSQL
// (store/site-list-reader.ts), so a cache miss costs Node little more than concatenating
// strings. A page starts at an offset (`page`, capped by the catalogue) or after a cursor
// (keyset, any depth); `hasMore` and `next_cursor` come from reading one row more.
//
// Its two caches are short-lived and in-process (the kit's `createLoadingCache`), because
// this is the hottest public read: serialised pages (SITES_LIST_CACHE_MS, 5 s by default)
// and totals per filter (SITES_COUNT_CACHE_MS, 30 s), as a total costs a plan and, for
// few matches, a count, where the page is read from an index. A cached value may be
// up to its TTL old, except that this process clears its caches when it stores a new site
// or a boost, so a submitter sees their site at once; other replicas catch up within the
// TTL. Concurrent misses of one key share a single load (no stampede). A TTL of 0 turns a
// cache off.
import { SITES_PAGE_SIZE, type SiteListQuery } from '@svc/types';
import { badRequest, createLoadingCache, type LoadingCache, type MatchTotal } from '@svc/service-kit';
import { encodedJsonText, type EncodedJson } from '../domain/encoded-json.js';
import { decodeSiteCursor } from '../domain/site-cursor.js';
import type { SitePageStart } from '../domain/site-list-query.js';
import type { SiteListReader } from '../store/site-list-reader.js';

export const INVALID_CURSOR = 'Invalid cursor';
export const CURSOR_WITH_PAGE = 'Give page or cursor, not both';

/** The page and count caches of GET /api/sites; `clear` empties both. */
export interface ListCaches {
  pages: LoadingCache<EncodedJson>;
  counts: LoadingCache<MatchTotal>;
  clear(): void;
}

/** Both caches, from their lifetimes in milliseconds (0 = off). */
export function createListCaches(pageMs: number, countMs: number): ListCaches {
  const pages = createLoadingCache<EncodedJson>({ ttlMs: pageMs, max: 500 });
  const counts = createLoadingCache<MatchTotal>({ ttlMs: countMs, max: 1000 });
  return {
    pages,
    counts,
    clear() {
      pages.clear();
      counts.clear();
    },
  };
}

/** Where the query asks the page to start; a 400 for a cursor this service did not write. */
function pageStart(query: SiteListQuery): SitePageStart {
  if (query.cursor === undefined) return { offset: (query.page - 1) * SITES_PAGE_SIZE };
  if (query.page !== 1) throw badRequest(CURSOR_WITH_PAGE);
  const after = decodeSiteCursor(query.cursor);
  // A cursor names a position in one order: another sort's cursor is not one of this order.
  if (!after || after.sort !== query.sort) throw badRequest(INVALID_CURSOR);
  return { after };
}

export function listSites(
  reader: SiteListReader,
  caches: ListCaches,
  query: SiteListQuery,
): Promise<EncodedJson> {
  const start = pageStart(query);
  const filter = { ...query, search: query.search === '' ? undefined : query.search, start };
  const key = JSON.stringify([filter.sort, filter.tag, filter.search, filter.page, filter.cursor ?? null]);
  return caches.pages.get(key, async () => {
    const [page, total] = await Promise.all([
      reader.page(filter),
      caches.counts.get(JSON.stringify([filter.tag, filter.search]), () => reader.total(filter)),
    ]);
    // The SiteListResponse shape, in its key order.
    const rest = JSON.stringify({
      total: total.total,
      total_exact: total.exact,
      page: filter.page,
      hasMore: page.hasMore,
      next_cursor: page.nextCursor,
    });
    // Gzip only what is cached: a body sent once is not worth compressing.
    return encodedJsonText(`{"sites":${page.sitesJson},${rest.slice(1)}`, {
      gzip: caches.pages.enabled,
    });
  });
}
