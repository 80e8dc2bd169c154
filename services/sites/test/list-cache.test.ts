// The GET /api/sites page cache: TTL, single load for concurrent misses, clear() on local
// writes, bounded size; and on the app: a page is served from the cache until a submit.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildApp } from '../src/app.js';
import { createListCache } from '../src/list-cache.js';
import { nextIp, startHarness, type Harness } from './api-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createListCache', () => {
  it('loads once per key within the TTL, again after it', async () => {
    const cache = createListCache(50);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('other', load)).toBe('v2');
    await sleep(60);
    expect(await cache.get('k', load)).toBe('v3');
  });

  it('shares one load among concurrent misses', async () => {
    const cache = createListCache(1000);
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

  it('forgets everything on clear(), including a load that started before it', async () => {
    const cache = createListCache(1000);
    let loads = 0;
    const slow = async () => {
      loads++;
      await sleep(20);
      return `v${loads}`;
    };
    const inFlight = cache.get('k', slow);
    cache.clear();
    expect(await inFlight).toBe('v1');
    expect(await cache.get('k', slow)).toBe('v2');
  });

  it('keeps at most maxEntries pages and is off with a TTL of 0', async () => {
    const cache = createListCache(1000, 2);
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('c', load); // evicts a
    expect(await cache.get('c', load)).toBe('v3');
    expect(await cache.get('a', load)).toBe('v4');
    const off = createListCache(0);
    expect(await off.get('k', load)).toBe('v5');
    expect(await off.get('k', load)).toBe('v6');
  });
});

describe('GET /api/sites with the cache on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves a cached page until this process stores a new site', async () => {
    const app = buildApp({ ...h.deps, listCacheMs: 60_000 });
    await h.db.site.create({
      data: { id: 'c1', url: 'https://c1.example', domain: 'c1.example', title: 'c1' },
    });
    expect((await request(app).get('/api/sites')).body.total).toBe(1);
    // Written behind the app's back (another replica, the worker): not seen within the TTL.
    await h.db.site.create({
      data: { id: 'c2', url: 'https://c2.example', domain: 'c2.example', title: 'c2' },
    });
    expect((await request(app).get('/api/sites')).body.total).toBe(1);
    // A submit through this app clears its cache.
    expect(
      (
        await request(app)
          .post('/api/sites')
          .set('X-Forwarded-For', nextIp())
          .send({ url: 'https://c3.example' })
      ).status,
    ).toBe(201);
    const res = await request(app).get('/api/sites');
    expect(res.body.total).toBe(3);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('reuses the match count of a filter across pages with the count cache on', async () => {
    const app = buildApp({ ...h.deps, countCacheMs: 60_000 });
    const before = (await request(app).get('/api/sites')).body.total;
    await h.db.site.create({
      data: { id: 'c4', url: 'https://c4.example', domain: 'c4.example', title: 'c4' },
    });
    // The page is fresh (c4 is listed), the count is the cached one.
    const res = await request(app).get('/api/sites').query({ sort: 'recent' });
    expect(res.body.sites.map((s: { id: string }) => s.id)).toContain('c4');
    expect(res.body.total).toBe(before);
    expect((await request(buildApp(h.deps)).get('/api/sites')).body.total).toBe(before + 1);
  });
});
