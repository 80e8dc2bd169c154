// PostgreSQL and Redis go away behind cuttable proxies: requests that need them answer
// 503 JSON (never a 2xx that was not kept, never a hang or a crash) and the app recovers
// alone when they return.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
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

describe('Redis outage', () => {
  it('refuses a submit it cannot queue (503, site kept pending), then queues it on retry', async () => {
    await redis.cut();
    const down = await submit('https://redis-during.example');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'Service temporarily unavailable' });
    const row = await h.db.site.findUnique({ where: { url: 'https://redis-during.example' } });
    expect(row?.scrapeStatus).toBe('pending');
    // Listing needs PostgreSQL only: it keeps working.
    expect((await request(h.app).get('/api/sites')).status).toBe(200);
    expect((await request(h.app).get('/readyz')).status).toBe(503);

    await redis.restore();
    // Each client reconnects on its own backoff: poll (bounded) rather than guess a delay.
    const retry = await eventually(
      () => submit('https://redis-during.example'),
      (r) => r.status !== 503,
    );
    expect(retry.status).toBe(200);
    expect((await h.scrapeQueue.getJob(`scrape-${row!.id}`))?.data).toEqual({ siteId: row!.id });
    // The chat announcement was committed with the row, so the 503 did not lose it: once.
    await h.outbox.drain();
    const announced = (await h.chatQueue.getJobs(['waiting', 'delayed', 'prioritized'])).filter(
      (j) => j.data.content_params.site_id === row!.id,
    );
    expect(announced.map((j) => j.data.content_key)).toEqual(['site_submitted']);
    const ready = await eventually(
      () => request(h.app).get('/readyz'),
      (r) => r.status === 200,
    );
    expect(ready.status).toBe(200);
  }, 40_000);
});
