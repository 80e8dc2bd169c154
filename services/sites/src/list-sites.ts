// GET /api/sites as a domain operation: a page of sites plus the exact match count, each
// behind its cache (list-cache.ts), serialised once per cached page. The page's JSON is
// built by PostgreSQL (site-list-reader.ts), so a cache miss costs Node little more than
// concatenating strings.
import { SITES_PAGE_SIZE } from '@svc/types';
import type { SiteListQuery } from '@svc/types';
import { encodedJsonText, type EncodedJson } from './encoded-json.js';
import type { ListCache } from './list-cache.js';
import type { SiteListReader } from './site-list-reader.js';

/** The page and count caches of GET /api/sites; `clear` empties both. */
export interface ListCaches {
  pages: ListCache<EncodedJson>;
  counts: ListCache<number>;
  clear(): void;
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
