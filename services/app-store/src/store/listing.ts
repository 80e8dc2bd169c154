// The public listing: a page of approved apps plus `meta.total`, answered as JSON text.
//
// Totals. Counting all matches on every request would scan ~every approved row for the
// first page (100k apps: 15 ms, the dominant cost), so totals are cached in one Redis hash
// per deployment, one field per filter set, for TOTAL_TTL_SECONDS. Every write that can
// change which apps match (submit, block, PATCH of name/description/tags/category) deletes
// the hash, so a client that writes and then lists sees an exact total; a count racing a
// concurrent write can be stale for at most the TTL. With Redis down the count is made in
// PostgreSQL (the listing keeps working).
//
// Pages. Each process keeps the answers of up to PAGE_CACHE_ENTRIES distinct listing
// queries (least recently used out first) for `pageCacheMs` (APP_STORE_LISTING_CACHE_MS,
// default 1000 ms; 0 = off) in the kit's loading cache: a burst of identical anonymous
// requests costs one query per second instead of one each (and concurrent misses of one
// query share a single database round trip). Writes made through this process clear it at
// once; writes through another replica show up here within pageCacheMs.
import { createLoadingCache, type Logger, type Redis } from '@svc/service-kit';
import type { AppListQuery } from '@svc/types';
import { listingTotalKey, normalizeFilter, type ListingFilter } from '../domain/listing-query.js';
import type { ListingReader } from './listing-reader.js';

export const TOTAL_TTL_SECONDS = 10;
export const PAGE_CACHE_ENTRIES = 500;

export interface ListingTotals {
  get(filter: ListingFilter, count: () => Promise<number>): Promise<number>;
  /** After a write that may change which apps match a filter. */
  invalidate(): Promise<void>;
}

export function createListingTotals(redis: Redis, prefix: string, logger: Logger): ListingTotals {
  const key = `${prefix}app-store:listing-totals`;
  return {
    async get(filter, count) {
      const field = listingTotalKey(filter);
      let cached: string | null;
      try {
        cached = await redis.hget(key, field);
      } catch (err) {
        logger.debug({ err }, 'listing totals cache unavailable');
        return count();
      }
      if (cached !== null) return Number(cached);
      const total = await count();
      redis
        .multi()
        .hset(key, field, String(total))
        .expire(key, TOTAL_TTL_SECONDS, 'NX')
        .exec()
        .catch((err: unknown) => logger.debug({ err }, 'listing totals cache not written'));
      return total;
    },
    async invalidate() {
      try {
        await redis.del(key);
      } catch (err) {
        // The write itself succeeded; a stale total lasts at most TOTAL_TTL_SECONDS.
        logger.warn({ err }, 'listing totals cache not invalidated');
      }
    },
  };
}

export interface Listing {
  /** The UTF-8 JSON of `{ apps, meta }` (a Buffer, so a cached answer is encoded once). */
  body(query: AppListQuery): Promise<Buffer>;
  /**
   * After any write that can change a listing (membership, order or fields), by `caller`:
   * first the write's position for the caller's and this process's reads (`wrote`), so the
   * reload never comes from a replica without the write; then the caches.
   */
  invalidate(opts: { totals: boolean; caller?: string }): Promise<void>;
}

export function createListing(deps: {
  reader: ListingReader;
  totals: ListingTotals;
  pageCacheMs: number;
  /** The read router's `wrote` (read-routing.ts); default: nothing to record. */
  wrote?: (caller: string | undefined) => Promise<void>;
  now?: () => number;
}): Listing {
  const pages = createLoadingCache<Buffer>({
    ttlMs: deps.pageCacheMs,
    max: PAGE_CACHE_ENTRIES,
    now: deps.now,
  });

  async function build(filter: ListingFilter, query: AppListQuery): Promise<Buffer> {
    const [page, total] = await Promise.all([
      deps.reader.page(filter, query.limit, query.offset),
      deps.totals.get(filter, () => deps.reader.count(filter)),
    ]);
    const meta = { limit: query.limit, offset: query.offset, count: page.count, total };
    return Buffer.from(`{"apps":${page.appsJson},"meta":${JSON.stringify(meta)}}`);
  }

  return {
    async body(query) {
      const filter = normalizeFilter(query);
      const key = `${listingTotalKey(filter)}|${query.limit}|${query.offset}`;
      // Concurrent misses of one query share one database round trip; an answer computed
      // across a write (invalidate) is returned but not kept.
      return pages.get(key, () => build(filter, query));
    },
    async invalidate({ totals, caller }) {
      await deps.wrote?.(caller);
      pages.clear();
      if (totals) await deps.totals.invalidate();
    },
  };
}
