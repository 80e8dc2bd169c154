// A short-lived in-process cache of loaded values (`lru-cache`): a TTL, at most `max`
// entries (least recently used out first), and concurrent misses of one key sharing one
// load. A load that began before `clear()` is answered to its callers but not stored: it
// may hold what a write made since has changed. A TTL of 0 (or less) turns the cache off.
import { LRUCache } from 'lru-cache';

export interface LoadingCacheOptions<V> {
  ttlMs: number;
  max: number;
  /** Whether a loaded value may be stored (else it is only shared with concurrent callers). */
  keep?: (value: V) => boolean;
  /** The clock, for tests. */
  now?: () => number;
}

export interface LoadingCache<V> {
  /** False when the TTL is 0: every get() loads. */
  readonly enabled: boolean;
  readonly size: number;
  /** The stored value of `key` while fresh, without loading. */
  peek(key: string): V | undefined;
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forget every value, and every load in flight. */
  clear(): void;
}

type Load<V> = () => Promise<V>;

export function createLoadingCache<V extends NonNullable<unknown>>(options: LoadingCacheOptions<V>): LoadingCache<V> {
  const { ttlMs, max, keep } = options;
  if (ttlMs <= 0) {
    return { enabled: false, size: 0, peek: () => undefined, get: (_key, load) => load(), clear() {} };
  }
  const cache = new LRUCache<string, V, Load<V>>({
    max,
    ttl: ttlMs,
    // A clear() aborts the loads in flight; their callers still get the value, unstored.
    ignoreFetchAbort: true,
    fetchMethod: (_key, _stale, { context }) => context(),
    // Read the clock at every check rather than once a millisecond (a test's clock moves).
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    enabled: true,
    get size() {
      return cache.size;
    },
    peek: (key) => cache.get(key),
    async get(key, load) {
      const value = (await cache.fetch(key, { context: load })) as V;
      if (keep && !keep(value) && cache.peek(key) === value) cache.delete(key);
      return value;
    },
    clear: () => cache.clear(),
  };
}
