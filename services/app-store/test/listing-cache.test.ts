// The per-process page cache of the listing (src/store/listing.ts) in isolation: reuse within the
// TTL, single flight of concurrent misses, and no stale store after a write mid-query.
import { describe, expect, it } from '@jest/globals';
import { AppListQuery } from '@svc/types';
import { createListing, type ListingTotals } from '../src/store/listing.js';
import type { ListingReader } from '../src/store/listing-reader.js';

function fixture(pageCacheMs: number) {
  let clock = 1_000;
  let version = 0;
  let pageCalls = 0;
  const gates: Array<() => void> = [];
  const reader: ListingReader = {
    async page() {
      pageCalls += 1;
      const v = version;
      await new Promise<void>((resolve) => gates.push(resolve));
      return { count: 1, appsJson: `[{"v":${v}}]`, hasMore: false };
    },
    total: async () => ({ total: 1, exact: true }),
  };
  const totals: ListingTotals = { get: (_f, count) => count(), invalidate: async () => {} };
  const listing = createListing({ reader, totals, pageCacheMs, now: () => clock });
  return {
    listing,
    release: () => gates.splice(0).forEach((open) => open()),
    tick: (ms: number) => (clock += ms),
    write: () => (version += 1),
    calls: () => pageCalls,
  };
}

const query = AppListQuery.parse({});
const flush = () => new Promise((r) => setImmediate(r));

describe('listing page cache', () => {
  it('shares one query among concurrent misses and reuses the answer within the TTL', async () => {
    const f = fixture(1000);
    const answers = Array.from({ length: 10 }, () => f.listing.body(query));
    await flush();
    f.release();
    const bodies = await Promise.all(answers);
    expect(new Set(bodies.map(String)).size).toBe(1);
    expect(bodies.every((b) => b === bodies[0])).toBe(true);
    expect(f.calls()).toBe(1);
    f.tick(999);
    await f.listing.body(query);
    expect(f.calls()).toBe(1);
    f.tick(2);
    const again = f.listing.body(query);
    await flush();
    f.release();
    await again;
    expect(f.calls()).toBe(2);
  });

  it('does not keep an answer computed before a write that happened meanwhile', async () => {
    const f = fixture(1000);
    const before = f.listing.body(query);
    await flush();
    f.write();
    await f.listing.invalidate({ totals: true });
    f.release();
    expect(JSON.parse(String(await before)).apps).toEqual([{ v: 0 }]);
    const after = f.listing.body(query);
    await flush();
    f.release();
    expect(JSON.parse(String(await after)).apps).toEqual([{ v: 1 }]);
    expect(f.calls()).toBe(2);
  });

  it('queries every time when the cache is off', async () => {
    const f = fixture(0);
    const both = [f.listing.body(query), f.listing.body(query)];
    await flush();
    f.release();
    await Promise.all(both);
    expect(f.calls()).toBe(2);
  });
});
