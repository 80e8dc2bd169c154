// Redis goes away and comes back: requests get 503 (never a hang or a crash) and the
// service recovers by itself.
import { afterAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { redisCheck } from '../src/ops/health.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis, type Redis } from '../src/redis/redis.js';
import { startTcpProxy } from '../src/testing/tcp-proxy.js';
import { eventually, testRedisPrefix } from '../src/testing/index.js';

const key = `${testRedisPrefix()}outage:count`;

const logger = createLogger('test', 'silent');

/** An app whose GET /count increments a Redis counter: one command per request. */
const countingApp = (redis: Redis, readiness?: Parameters<typeof createServiceApp>[0]['readiness']) =>
  createServiceApp({
    logger,
    readiness,
    routes: (a) =>
      a.get('/count', async (_req, res) => {
        res.json({ value: await redis.incr(key) });
      }),
  });

describe('Redis outage', () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterAll(() => cleanup());

  it('answers 503 while Redis is unreachable and recovers when it returns', async () => {
    const proxy = await startTcpProxy(6379);
    const redis = createRedis(`redis://127.0.0.1:${proxy.port}`, logger);
    cleanup = async () => {
      await redis.del(key).catch(() => undefined);
      redis.disconnect();
      await proxy.close();
    };
    await waitForRedis(redis);
    const app = countingApp(redis, { redis: redisCheck(redis, 500) });
    expect((await request(app).get('/count')).status).toBe(200);

    await proxy.cut();
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const during = await request(app).get('/count');
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ error: 'Service temporarily unavailable' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await request(app).get('/readyz')).status).toBe(503);

    await proxy.restore();
    await waitForRedis(redis, 10_000);
    expect((await request(app).get('/count')).status).toBe(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });
});

describe('Redis that stops answering', () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterAll(() => cleanup());

  it('answers 503 within the command timeout instead of hanging', async () => {
    const proxy = await startTcpProxy(6379);
    const redis = createRedis(`redis://127.0.0.1:${proxy.port}`, logger);
    cleanup = async () => {
      redis.disconnect();
      await proxy.close();
      // The stalled client cannot clean up after itself: use a direct one.
      const direct = createRedis('redis://127.0.0.1:6379', logger);
      await waitForRedis(direct);
      await direct.del(key);
      direct.disconnect();
    };
    await waitForRedis(redis);
    const app = countingApp(redis);
    expect((await request(app).get('/count')).status).toBe(200);

    proxy.stall();
    const started = Date.now();
    const during = await request(app).get('/count');
    expect(during.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3500);
  });
});

describe('a Redis connection gone half-open', () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterAll(() => cleanup());

  it('answers 503, then the client replaces the connection by itself and requests succeed again', async () => {
    const proxy = await startTcpProxy(6379);
    // PINGed every 300 ms here (default 10 s); each PING answers within the command timeout (2 s).
    const redis = createRedis(`redis://127.0.0.1:${proxy.port}`, logger, { pingEveryMs: 300 });
    cleanup = async () => {
      await redis.del(key).catch(() => undefined);
      redis.disconnect();
      await proxy.close();
    };
    await waitForRedis(redis);
    const app = countingApp(redis);
    expect((await request(app).get('/count')).status).toBe(200);

    // The open connection stops forwarding for good (nothing closes it); new ones work.
    proxy.stallOpen();
    expect((await request(app).get('/count')).status).toBe(503);
    const recovered = await eventually(
      async () => ((await request(app).get('/count')).status === 200 ? true : undefined),
      { ms: 8000, everyMs: 250, what: 'a 200 on a new connection' },
    ).catch(() => false);
    expect(recovered).toBe(true);
  }, 15_000);
});

describe('startTcpProxy', () => {
  it('closes while cut', async () => {
    const proxy = await startTcpProxy(6379);
    await proxy.cut();
    await expect(proxy.close()).resolves.toBeUndefined();
  });
});
