// PostgreSQL or Redis goes away behind a cuttable proxy: the app answers 503 JSON where it
// needs the dependency and recovers alone when it returns.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { startHarness, type Harness } from './harness.js';

const UNAVAILABLE = { error: 'Service temporarily unavailable' };
/** Whether a test left its proxy cut (so afterAll restores it before closing). */
let down = false;

describe('PostgreSQL outage', () => {
  let h: Harness;
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy(5432);
    h = await startHarness({ dbTarget: (t) => ({ ...t, host: '127.0.0.1', port: proxy.port }) });
  });
  afterAll(async () => {
    if (down) await proxy.restore();
    await h.close();
    await proxy.close();
  });

  it('answers 503 while it is down and works again when it returns', async () => {
    const dev = h.user();
    await h
      .submit(dev, { slug: 'outage-app', name: 'Outage', url: 'https://o.example.com' })
      .expect(201);
    await request(h.app).get('/api/v1/apps').expect(200);

    await proxy.cut();
    down = true;
    for (const res of [
      await request(h.app).get('/api/v1/apps').query({ q: 'new words' }),
      await request(h.app).get('/api/v1/apps/outage-app'),
      await h.submit(dev, { slug: 'outage-two', name: 'Two', url: 'https://t.example.com' }),
      await request(h.app)
        .post('/api/v1/apps/outage-app/report')
        .set('Cookie', h.user().cookie)
        .send({}),
    ]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
    }
    expect((await request(h.app).get('/readyz')).status).toBe(503);
    // Needs no database: still served.
    expect((await request(h.app).get('/api/v1/categories')).status).toBe(200);

    await proxy.restore();
    down = false;
    await request(h.app).get('/api/v1/apps/outage-app').expect(200);
    await h
      .submit(dev, { slug: 'outage-two', name: 'Two', url: 'https://t.example.com' })
      .expect(201);
    expect((await request(h.app).get('/readyz')).status).toBe(200);
  }, 30_000);
});

describe('Redis outage', () => {
  let h: Harness;
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy(6379);
    h = await startHarness({ redisUrl: `redis://127.0.0.1:${proxy.port}` });
  });
  afterAll(async () => {
    if (down) await proxy.restore();
    await h.close();
    await proxy.close();
  });

  it('answers 503 for session checks, keeps the public listing up, and recovers', async () => {
    const u = h.user();
    await h.seedApp(u, { slug: 'redis-outage' });
    await request(h.app).get('/api/v1/me').set('Cookie', u.cookie).expect(200);

    await proxy.cut();
    down = true;
    const me = await request(h.app).get('/api/v1/me').set('Cookie', u.cookie);
    expect(me.status).toBe(503);
    expect(me.body).toEqual(UNAVAILABLE);
    // Listing: rate limits fall back to the in-memory limiter, totals are counted in PostgreSQL.
    const listed = await request(h.app).get('/api/v1/apps');
    expect(listed.status).toBe(200);
    expect(listed.body.meta.total).toBe(1);
    expect((await request(h.app).get('/readyz')).status).toBe(503);

    await proxy.restore();
    down = false;
    let back = 0;
    for (let i = 0; i < 50 && back !== 200; i++) {
      back = (await request(h.app).get('/api/v1/me').set('Cookie', u.cookie)).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(back).toBe(200);
    expect((await request(h.app).get('/readyz')).status).toBe(200);
  }, 30_000);
});
