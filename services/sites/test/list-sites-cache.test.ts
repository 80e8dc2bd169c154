// The GET /api/sites caches on the app (actions/list-sites.ts): a page is served from the
// page cache until this process stores a site, and a filter's match count from the count
// cache across pages. The cache itself is the kit's `createLoadingCache`, tested there.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildApp } from '../src/app.js';
import { nextIp, startHarness, type Harness } from './api-harness.js';

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
