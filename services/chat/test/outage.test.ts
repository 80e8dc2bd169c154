// PostgreSQL and Redis go away behind cuttable proxies: chat answers 503 JSON and
// recovers alone when they return.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { INTERNAL_TOKEN, startHarness, type Harness } from './harness.js';

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
  await h.close();
  await pg.close();
  await redis.close();
});

const UNAVAILABLE = { error: 'Service temporarily unavailable' };
const post = (ip: string) =>
  request(h.app).post('/api/messages').set('X-Forwarded-For', ip).send({ content: 'hi' });
const entrance = (ip: string) =>
  request(h.app).post('/internal/entrance').set('X-Internal-Token', INTERNAL_TOKEN).send({ ip });

async function until(check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('PostgreSQL outage', () => {
  it('answers 503 while it is down and works again when it returns', async () => {
    expect((await post('10.0.0.1')).status).toBe(201);
    await pg.cut();
    const list = await request(h.app).get('/api/messages');
    expect(list.status).toBe(503);
    expect(list.body).toEqual(UNAVAILABLE);
    const down = await post('10.0.0.2');
    expect(down.status).toBe(503);
    expect(down.body).toEqual(UNAVAILABLE);
    expect((await entrance('10.0.0.3')).status).toBe(503);
    expect((await request(h.app).get('/readyz')).status).toBe(503);
    await pg.restore();
    expect((await post('10.0.0.2')).status).toBe(201);
    expect((await request(h.app).get('/api/messages')).status).toBe(200);
    // The entrance window claimed during the outage was released: the IP enters now.
    expect((await entrance('10.0.0.3')).body.message).not.toBeNull();
  });
});

describe('Redis outage', () => {
  it('refuses writes with 503 (nothing could be broadcast) and recovers', async () => {
    await redis.cut();
    await until(async () => h.redis.status !== 'ready');
    const down = await post('10.0.1.1');
    expect(down.status).toBe(503);
    expect(down.body).toEqual(UNAVAILABLE);
    const entered = await entrance('10.0.1.2');
    expect(entered.status).toBe(503);
    expect((await request(h.app).get('/readyz')).status).toBe(503);
    // Reading only needs PostgreSQL.
    expect((await request(h.app).get('/api/messages')).status).toBe(200);

    await redis.restore();
    expect(await until(async () => h.redis.status === 'ready')).toBe(true);
    const back = await post('10.0.1.1');
    expect(back.status).toBe(201);
    expect((await entrance('10.0.1.2')).body.message).not.toBeNull();
    await h.waitForEvents((e) => e.payload.id === back.body.message.id);
    expect(h.events.some((e) => e.payload.id === back.body.message.id)).toBe(true);
  });
});
