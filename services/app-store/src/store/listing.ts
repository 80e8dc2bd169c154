// The public listing: a page of approved apps plus `meta`, answered as JSON text.
//
// Totals. A total is exact up to EXACT_TOTAL_LIMIT matches and PostgreSQL's estimate above
// (the kit's countOrEstimate, docs/decisions/038-growth.md): counting every match of the
// first page's filter would read ~every approved row (1M apps: ~450 ms). Totals are also
// cached in one Redis hash per deployment, one field per filter set, for `totalsCacheMs`
// (APP_STORE_TOTALS_CACHE_MS, default 10 s; 0 = off). Every write that can change which
// apps match (submit, block, PATCH of name/description/tags/category) deletes the hash, so
// a client that writes and then lists sees a fresh total; a total racing a concurrent write
// can be stale for at most the TTL. With Redis down the total is made in PostgreSQL (the
// listing keeps working). `meta.has_more` comes from reading one app more than the page.
//
// Pages. Each process keeps the answers of up to PAGE_CACHE_ENTRIES distinct listing
// queries (least recently used out first) for `pageCacheMs` (APP_STORE_LISTING_CACHE_MS,
// default 1000 ms; 0 = off) in the kit's loading cache: a burst of identical anonymous
// requests costs one query per second instead of one each (and concurrent misses of one
// query share a single database round trip). Writes made through this process clear it at
// once; writes through another replica show up here within pageCacheMs.
import { createLoadingCache, type Logger, type MatchTotal, type Redis } from '@svc/service-kit';
import type { AppListQuery } from '@svc/types';
import { listingTotalKey, normalizeFilter, type ListingFilter } from '../domain/listing-query.js';
import type { ListingReader } from './listing-reader.js';

export const PAGE_CACHE_ENTRIES = 500;

export interface ListingTotals {
  get(filter: ListingFilter, count: () => Promise<MatchTotal>): Promise<MatchTotal>;
  /** After a write that may change which apps match a filter. */
  invalidate(): Promise<void>;
}

/** An exact total as its number, an estimate with a `~` before it. */
const encodeTotal = (t: MatchTotal) => `${t.exact ? '' : '~'}${t.total}`;
const decodeTotal = (v: string): MatchTotal =>
  v.startsWith('~') ? { total: Number(v.slice(1)), exact: false } : { total: Number(v), exact: true };

/** `ttlMs` 0: every listing counts (or estimates) its total. */
export function createListingTotals(redis: Redis, prefix: string, logger: Logger, ttlMs: number): ListingTotals {
  // v2: a field may hold an estimate (`~`), which the former readers would not parse.
  const key = `${prefix}app-store:listing-totals:v2`;
  return {
    async get(filter, count) {
      if (ttlMs === 0) return count();
      const field = listingTotalKey(filter);
      let cached: string | null;
      try {
        cached = await redis.hget(key, field);
      } catch (err) {
        logger.debug({ err }, 'listing totals cache unavailable');
        return count();
      }
      if (cached !== null) return decodeTotal(cached);
      const total = await count();
      redis
        .multi()
        .hset(key, field, encodeTotal(total))
        .pexpire(key, ttlMs, 'NX')
        .exec()
        .catch((err: unknown) => logger.debug({ err }, 'listing totals cache not written'));
      return total;
    },
    async invalidate() {
      try {
        await redis.del(key);
      } catch (err) {
        // The write itself succeeded; a stale total lasts at most the TTL.
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
      deps.totals.get(filter, () => deps.reader.total(filter)),
    ]);
    // The AppListMeta shape, in its key order.
    const meta = {
      limit: query.limit,
      offset: query.offset,
      count: page.count,
      total: total.total,
      total_exact: total.exact,
      has_more: page.hasMore,
    };
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
