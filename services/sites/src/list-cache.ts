// Short-lived, in-process caches for GET /api/sites, the hottest public read: serialised
// pages (SITES_LIST_CACHE_MS, 5 s by default) and match counts per filter
// (SITES_COUNT_CACHE_MS, 30 s), because an exact count(*) over every match costs far more
// than the 60-row page, which an index serves. A cached value may be up to its TTL old,
// except that this process clears its caches when it stores a new site or a boost, so a
// submitter sees their site at once; other replicas catch up within the TTL. Concurrent
// misses of one key share a single load (no stampede). A TTL of 0 turns a cache off.
export interface ListCache<T = string> {
  /** False when the TTL is 0: every get() loads. */
  readonly enabled: boolean;
  get(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
}

export function createListCache<T = string>(ttlMs: number, maxEntries = 500): ListCache<T> {
  const entries = new Map<string, { body: T; expires: number }>();
  const loading = new Map<string, Promise<T>>();
  let generation = 0;

  return {
    enabled: ttlMs > 0,
    async get(key, load) {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit && hit.expires > Date.now()) return hit.body;
      let pending = loading.get(key);
      if (!pending) {
        const started = generation;
        pending = load()
          .then((body) => {
            // A load that began before a clear() may hold pre-write rows: serve, don't keep.
            if (started === generation) {
              entries.delete(key);
              if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
              entries.set(key, { body, expires: Date.now() + ttlMs });
            }
            return body;
          })
          .finally(() => loading.delete(key));
        loading.set(key, pending);
      }
      return pending;
    },
    clear() {
      generation += 1;
      entries.clear();
      loading.clear();
    },
  };
}
