// GET /api/sites as a use case: a page of sites plus the exact match count, each behind
// its cache, serialised once per cached page. The page's JSON is built by PostgreSQL
// (store/site-list-reader.ts), so a cache miss costs Node little more than concatenating
// strings.
//
// Its two caches are short-lived and in-process (the kit's `createLoadingCache`), because
// this is the hottest public read: serialised pages (SITES_LIST_CACHE_MS, 5 s by default)
// and match counts per filter (SITES_COUNT_CACHE_MS, 30 s), as an exact count(*) over every
// match costs far more than the 60-row page, which an index serves. A cached value may be
// up to its TTL old, except that this process clears its caches when it stores a new site
// or a boost, so a submitter sees their site at once; other replicas catch up within the
// TTL. Concurrent misses of one key share a single load (no stampede). A TTL of 0 turns a
// cache off.
import { SITES_PAGE_SIZE } from '@svc/types';
import type { SiteListQuery } from '@svc/types';
import { createLoadingCache, type LoadingCache } from '@svc/service-kit';
import { encodedJsonText, type EncodedJson } from '../domain/encoded-json.js';
import type { SiteListReader } from '../store/site-list-reader.js';

/** The page and count caches of GET /api/sites; `clear` empties both. */
export interface ListCaches {
  pages: LoadingCache<EncodedJson>;
  counts: LoadingCache<number>;
  clear(): void;
}

/** Both caches, from their lifetimes in milliseconds (0 = off). */
export function createListCaches(pageMs: number, countMs: number): ListCaches {
  const pages = createLoadingCache<EncodedJson>({ ttlMs: pageMs, max: 500 });
  const counts = createLoadingCache<number>({ ttlMs: countMs, max: 1000 });
  return {
    pages,
    counts,
    clear() {
      pages.clear();
      counts.clear();
    },
  };
}

export function listSites(
  reader: SiteListReader,
  caches: ListCaches,
  query: SiteListQuery,
): Promise<EncodedJson> {
  const filter = { ...query, search: query.search === '' ? undefined : query.search };
  const key = JSON.stringify([filter.sort, filter.tag, filter.search, filter.page]);
  return caches.pages.get(key, async () => {
    const [sitesJson, total] = await Promise.all([
      reader.pageJson(filter),
      caches.counts.get(JSON.stringify([filter.tag, filter.search]), () => reader.count(filter)),
    ]);
    // The SiteListResponse shape, in its key order: { sites, total, page, hasMore }.
    const rest = JSON.stringify({
      total,
      page: filter.page,
      hasMore: filter.page * SITES_PAGE_SIZE < total,
    });
    // Gzip only what is cached: a body sent once is not worth compressing.
    return encodedJsonText(`{"sites":${sitesJson},${rest.slice(1)}`, {
      gzip: caches.pages.enabled,
    });
  });
}
