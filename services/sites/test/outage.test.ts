// PostgreSQL and Redis go away behind cuttable proxies: requests that need them answer
// 503 JSON (never a 2xx that was not kept, never a hang or a crash) and the app recovers
// alone when they return. A submission needs PostgreSQL only: durable (2xx) or nothing
// (503), its scrape job and chat message relayed to Redis when Redis is there.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createPgPool } from '@svc/service-kit';
import { startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
let pg: TcpProxy;
let redis: TcpProxy;
beforeAll(async () => {
  pg = await startTcpProxy(5432);
  redis = await startTcpProxy(6379);
  h = await startHarness({
    dbTarget: (t) => ({ ...t, host: '127.0.0.1', port: pg.port }),
    redisUrl: `redis://127.0.0.1:${redis.port}`,
  });
});
afterAll(async () => {
  await h?.close();
  await pg.close();
  await redis.close();
});

async function eventually<T>(
  attempt: () => Promise<T>,
  done: (r: T) => boolean,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await attempt();
    if (done(r) || Date.now() > until) return r;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const submit = (url: string) =>
  request(h.app).post('/api/sites').set('X-Forwarded-For', nextIp()).send({ url });

describe('PostgreSQL outage', () => {
  it('answers 503 JSON while it is down and works again when it returns', async () => {
    expect((await submit('https://pg-before.example')).status).toBe(201);
    await pg.cut();
    for (const res of [
      await request(h.app).get('/api/sites'),
      await submit('https://pg-during.example'),
      await request(h.app).post('/api/clicks/x').set('X-Forwarded-For', nextIp()),
    ]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'Service temporarily unavailable' });
    }
    expect((await request(h.app).get('/readyz')).status).toBe(503);
    await pg.restore();
    expect(
      (
        await eventually(
          () => request(h.app).get('/api/sites'),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);
    expect((await submit('https://pg-after.example')).status).toBe(201);
    expect((await request(h.app).get('/readyz')).status).toBe(200);
  }, 30_000);
});

describe('PostgreSQL lost in the middle of a submission', () => {
  it('answers 503 and leaves nothing: no site, no chat message, no scrape job, no key', async () => {
    // A direct connection (not through the proxy) holds a lock that the submission's last
    // statement, the Idempotency-Key row, waits for: by then the site row, the chat message
    // and the scrape job are written in the same transaction. Then PostgreSQL goes away.
    const admin = createPgPool(h.dbTarget, 2);
    const locker = await admin.connect();
    const url = 'https://pg-midway.example';
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE idempotency_keys IN SHARE MODE');
      const pending = submit(url)
        .set('Idempotency-Key', 'midway-1')
        .then((r) => r);
      // Locks are per table of this test's schema (the admin pool's search_path), so other
      // suites running in parallel cannot be mistaken for this submission.
      const locksOn = async (table: string, granted: boolean) =>
        Number(
          (
            await admin.query(
              `SELECT count(*) AS n FROM pg_locks
               WHERE relation = $1::regclass AND granted = $2 AND pid <> pg_backend_pid()`,
              [table, granted],
            )
          ).rows[0].n,
        );
      const waiting = await eventually(
        () => locksOn('idempotency_keys', false),
        (n) => n > 0,
        10_000,
      );
      expect(waiting).toBe(1);
      await pg.cut();
      await locker.query('ROLLBACK');
      const res = await pending;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'Service temporarily unavailable' });

      const count = async (sql: string) => Number((await admin.query(sql, [url])).rows[0].n);
      // PostgreSQL ends the orphaned session, rolling its transaction back (its row locks on
      // sites go with it); then look.
      expect(
        await eventually(
          () => locksOn('sites', true),
          (n) => n === 0,
          10_000,
        ),
      ).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM sites WHERE url = $1`)).toBe(0);
      expect(
        await count(
          `SELECT count(*) AS n FROM system_message_outbox WHERE content_params->>'url' = $1`,
        ),
      ).toBe(0);
      // Every scrape request left belongs to a stored site.
      expect(
        await count(
          `SELECT count(*) AS n FROM job_outbox j
           WHERE NOT EXISTS (SELECT 1 FROM sites s WHERE s.id = j.payload->>'siteId') AND $1 <> ''`,
        ),
      ).toBe(0);
      expect(
        Number((await admin.query(`SELECT count(*) AS n FROM idempotency_keys`)).rows[0].n),
      ).toBe(0);
    } finally {
      locker.release();
      await admin.end();
      await pg.restore();
    }
    // The retry (same key) is a fresh submission: nothing of the first one was kept.
    const retry = await eventually(
      () => submit(url).set('Idempotency-Key', 'midway-1'),
      (r) => r.status !== 503,
    );
    expect(retry.status).toBe(201);
    expect(retry.body.site.submit_count).toBe(1);
  }, 40_000);
});

describe('Redis outage', () => {
  it('a submit while Redis is down is durable (201); its scrape job and chat message arrive once when Redis returns', async () => {
    await redis.cut();
    const down = await submit('https://redis-during.example');
    expect(down.status).toBe(201);
    expect(down.body.isNew).toBe(true);
    const id: string = down.body.site.id;
    // Committed with the row, waiting for the relays.
    expect(await h.db.jobOutbox.count({ where: { jobId: `scrape-${id}` } })).toBe(1);
    // A resubmission is durable too (another scrape request: the same job id).
    const again = await submit('https://redis-during.example');
    expect(again.status).toBe(200);
    expect(again.body.site.submit_count).toBe(2);
    // Listing needs PostgreSQL only: it keeps working.
    expect((await request(h.app).get('/api/sites')).status).toBe(200);
    expect((await request(h.app).get('/readyz')).status).toBe(503);

    await redis.restore();
    // Each client reconnects on its own backoff: relay until it goes through (bounded).
    await eventually(
      () =>
        h.relay().then(
          () => true,
          () => false,
        ),
      (ok) => ok,
    );
    await h.relay();
    expect(await h.db.jobOutbox.count()).toBe(0);
    const scrapes = (
      await h.scrapeQueue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed'])
    ).filter((j) => j.data.siteId === id);
    expect(scrapes.map((j) => j.id)).toEqual([`scrape-${id}`]);
    const announced = (await h.chatQueue.getJobs(['waiting', 'delayed', 'prioritized'])).filter(
      (j) => j.data.content_params.site_id === id,
    );
    expect(announced.map((j) => j.data.content_key)).toEqual(['site_submitted']);
    const ready = await eventually(
      () => request(h.app).get('/readyz'),
      (r) => r.status === 200,
    );
    expect(ready.status).toBe(200);
  }, 40_000);
});
