// PostgreSQL or Redis goes away behind a cuttable proxy: the app answers 503 JSON where it
// needs the dependency and recovers alone when it returns.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import request from 'supertest';
import { TEST_DATABASE_URL, startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
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

describe('PostgreSQL going away during a request', () => {
  let h: Harness;
  let proxy: TcpProxy;
  /** Reaches PostgreSQL directly: holds the app row's lock and ends the request's backend. */
  let admin: pg.Client;
  beforeAll(async () => {
    proxy = await startTcpProxy(5432);
    h = await startHarness({ dbTarget: (t) => ({ ...t, host: '127.0.0.1', port: proxy.port }) });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`SET search_path TO "${h.database.target.schema}"`);
  });
  afterAll(async () => {
    await admin.end();
    if (down) await proxy.restore();
    await h.close();
    await proxy.close();
  });

  /**
   * Starts a report while this test holds the app's row lock, so the request is inside its
   * transaction, waiting on PostgreSQL; resolves with that backend's pid and the answer.
   */
  async function reportInFlight(slug: string) {
    await admin.query('BEGIN');
    await admin.query('SELECT 1 FROM apps WHERE slug = $1 FOR UPDATE', [slug]);
    const answer = request(h.app).post(`/api/v1/apps/${slug}/report`).set('Cookie', h.user().cookie).send({}).then((r) => r);
    const { rows } = await (async () => {
      for (let i = 0; i < 100; i++) {
        const found = await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        );
        if (found.rows.length > 0) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the report never reached PostgreSQL');
    })();
    return { pid: rows[0]!.pid, answer };
  }

  it('answers 503 when PostgreSQL shuts the request\'s connection down (57P01) mid-transaction', async () => {
    const app = await h.seedApp(h.user());
    const { pid, answer } = await reportInFlight(app.slug);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const res = await answer;
    await admin.query('ROLLBACK');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(UNAVAILABLE);
    expect(res.headers['retry-after']).toBe('5');
    // Nothing was done behind the 503, and the next report goes through.
    expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).reportCount).toBe(0);
    await request(h.app).post(`/api/v1/apps/${app.slug}/report`).set('Cookie', h.user().cookie).send({}).expect(200);
  });

  it('answers 503 when the connection is cut mid-transaction, and recovers', async () => {
    const app = await h.seedApp(h.user());
    const { answer } = await reportInFlight(app.slug);
    await proxy.cut();
    down = true;
    const res = await answer;
    await admin.query('ROLLBACK');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(UNAVAILABLE);
    await proxy.restore();
    down = false;
    expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).reportCount).toBe(0);
    await request(h.app).post(`/api/v1/apps/${app.slug}/report`).set('Cookie', h.user().cookie).send({}).expect(200);
  });
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
