// The in-process loading cache: TTL, one load for concurrent misses, clear() (a load begun
// before it is answered, not stored), LRU bound, `keep`, and a TTL of 0 turning it off.
import { describe, expect, it } from '@jest/globals';
import { createLoadingCache } from '../src/data/loading-cache.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createLoadingCache', () => {
  it('loads once per key within the TTL, again after it', async () => {
    let clock = 1_000;
    const cache = createLoadingCache<string>({ ttlMs: 50, max: 10, now: () => clock });
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(cache.peek('k')).toBe('v1');
    expect(await cache.get('other', load)).toBe('v2');
    clock += 60;
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', load)).toBe('v3');
  });

  it('shares one load among concurrent misses', async () => {
    const cache = createLoadingCache<string>({ ttlMs: 1000, max: 10 });
    let loads = 0;
    const load = async () => {
      loads++;
      await sleep(20);
      return 'x';
    };
    expect(await Promise.all(Array.from({ length: 20 }, () => cache.get('k', load)))).toEqual(
      Array(20).fill('x'),
    );
    expect(loads).toBe(1);
  });

  it('forgets everything on clear(), and does not store a load that began before it', async () => {
    const cache = createLoadingCache<string>({ ttlMs: 1000, max: 10 });
    let loads = 0;
    const slow = async () => {
      loads++;
      await sleep(20);
      return `v${loads}`;
    };
    const inFlight = cache.get('k', slow);
    cache.clear();
    expect(await inFlight).toBe('v1');
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', slow)).toBe('v2');
    expect(await cache.get('k', slow)).toBe('v2');
  });

  it('passes a failed load on to every caller and stores nothing', async () => {
    const cache = createLoadingCache<string>({ ttlMs: 1000, max: 10 });
    const failing = async () => {
      await sleep(5);
      throw new Error('database down');
    };
    const results = await Promise.allSettled([cache.get('k', failing), cache.get('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.get('k', async () => 'ok')).toBe('ok');
  });

  it('keeps at most max entries, the least recently used out first', async () => {
    const cache = createLoadingCache<string>({ ttlMs: 1000, max: 2 });
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('a', load); // a is now the most recently used
    await cache.get('c', load); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.get('a', load)).toBe('v1');
    expect(await cache.get('b', load)).toBe('v4');
  });

  it('stores only the values `keep` accepts, yet shares each load', async () => {
    const cache = createLoadingCache<{ status: number }>({
      ttlMs: 1000,
      max: 10,
      keep: (v) => v.status === 200,
    });
    let loads = 0;
    const error = async () => {
      loads++;
      await sleep(10);
      return { status: 500 };
    };
    const [a, b] = await Promise.all([cache.get('e', error), cache.get('e', error)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    expect(cache.peek('e')).toBeUndefined();
    await cache.get('ok', async () => ({ status: 200 }));
    expect(cache.peek('ok')).toEqual({ status: 200 });
  });

  it('is off with a TTL of 0: every get loads', async () => {
    const off = createLoadingCache<string>({ ttlMs: 0, max: 10 });
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(off.enabled).toBe(false);
    expect(await off.get('k', load)).toBe('v1');
    expect(await off.get('k', load)).toBe('v2');
    expect(off.peek('k')).toBeUndefined();
  });
});
