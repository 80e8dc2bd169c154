import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis as SingleRedis } from 'ioredis';
import type { Redis } from '../src/redis/redis.js';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { createLogger } from '../src/ops/logger.js';
import { byIp } from '../src/http/client-ip.js';
import { ENDPOINTS, WINDOW_SECONDS } from '@svc/types';
import { distinctLimit, limitFor, rateLimit, scaleRateLimits } from '../src/http/rate-limit.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import { TEST_REDIS_URL, deleteRedisPrefix, testRedisPrefix } from '../src/testing/index.js';

const logger = createLogger('test', 'silent');
const prefix = testRedisPrefix();
const redis = createRedis(TEST_REDIS_URL, logger);
// A client pointed at a port where nothing listens: Redis "down".
const deadRedis = new SingleRedis('redis://127.0.0.1:1', {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  lazyConnect: true,
  retryStrategy: () => null,
});

beforeAll(() => waitForRedis(redis));

afterAll(async () => {
  await deleteRedisPrefix(redis, prefix);
  redis.disconnect();
  deadRedis.disconnect();
});

function appWith(client: Redis, points: number, key = byIp, trustProxy?: string) {
  const limit = rateLimit({ redis: client, prefix, name: `t${Math.random()}`, points, durationSeconds: 60, key });
  return createServiceApp({
    logger,
    trustProxy,
    routes: (app) => app.post('/thing', limit.middleware, (_req, res) => void res.json({ ok: true })),
  });
}

describe('trusted proxies (docs/decisions/013-operations-port.md)', () => {
  it('ignores a forged X-Forwarded-For from a peer that is not a configured proxy', async () => {
    // The test's peer is 127.0.0.1; only the gateway's (here: an unrelated) network is trusted.
    const app = appWith(redis, 2, byIp, '10.20.0.0/16');
    const statuses: number[] = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '198.51.100.9'])
      statuses.push((await request(app).post('/thing').set('X-Forwarded-For', forged)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('takes the forwarded address from a configured proxy', async () => {
    const app = appWith(redis, 1, byIp, 'loopback');
    const statuses: number[] = [];
    for (const ip of ['203.0.113.11', '203.0.113.12', '203.0.113.11'])
      statuses.push((await request(app).post('/thing').set('X-Forwarded-For', ip)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('trusts loopback only by default: never any private address (another pod)', () => {
    const trust = createServiceApp({ logger, routes: () => {} }).get('trust proxy fn') as (
      addr: string,
      hop: number,
    ) => boolean;
    expect(trust('127.0.0.1', 0)).toBe(true);
    for (const pod of ['10.1.2.3', '192.168.0.5', '172.16.0.9', 'fd00::1', '169.254.1.1'])
      expect({ pod, trusted: trust(pod, 0) }).toEqual({ pod, trusted: false });
  });
});

describe('rateLimit', () => {
  it('allows `points` requests, then 429 JSON with Retry-After and RateLimit headers', async () => {
    const app = appWith(redis, 3);
    for (let i = 0; i < 3; i++) {
      const ok = await request(app).post('/thing');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('3');
      expect(ok.headers['ratelimit-remaining']).toBe(String(2 - i));
      expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const limited = await request(app).post('/thing');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
  });

  it('counts each key separately', async () => {
    const app = appWith(redis, 1, (req) => String(req.headers['x-user']));
    expect((await request(app).post('/thing').set('x-user', 'a')).status).toBe(200);
    expect((await request(app).post('/thing').set('x-user', 'a')).status).toBe(429);
    expect((await request(app).post('/thing').set('x-user', 'b')).status).toBe(200);
  });

  it('keeps counting in memory while Redis is down', async () => {
    const app = appWith(deadRedis, 2);
    expect((await request(app).post('/thing')).status).toBe(200);
    expect((await request(app).post('/thing')).status).toBe(200);
    expect((await request(app).post('/thing')).status).toBe(429);
  });
});

describe('RATE_LIMIT_SCALE (scaleRateLimits, set by createRuntime)', () => {
  afterAll(() => scaleRateLimits(1));

  it('multiplies the points of every limiter made afterwards, plain and distinct-value ones', async () => {
    scaleRateLimits(3);
    const app = appWith(redis, 2);
    const distinct = distinctLimit({ redis, prefix, name: `d${Math.random()}`, limit: 1, durationSeconds: 60 });
    const distinctApp = createServiceApp({
      logger,
      routes: (a) =>
        a.post('/value/:v', async (req, res) => {
          if (await distinct.admit('one-key', req.params.v!, res)) res.json({ ok: true });
        }),
    });
    scaleRateLimits(1);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await request(app).post('/thing')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect((await request(app).post('/thing')).headers['ratelimit-limit']).toBe('6');
    const values: number[] = [];
    for (const v of ['a', 'b', 'c', 'd']) values.push((await request(distinctApp).post(`/value/${v}`)).status);
    expect(values).toEqual([200, 200, 200, 429]);
    // Made after the scale went back to 1: the catalogue's numbers again.
    expect((await request(appWith(redis, 2)).post('/thing')).headers['ratelimit-limit']).toBe('2');
  });

  it('takes positive integers only', () => {
    expect(() => scaleRateLimits(0)).toThrow('positive integer');
    expect(() => scaleRateLimits(1.5)).toThrow('positive integer');
  });
});

describe('rateLimit.check (limits that count failures)', () => {
  // A route that fails unless ?ok=1, counting only failures, checked before the work.
  function failureCountingApp(client: Redis, points: number) {
    const limit = rateLimit({ redis: client, prefix, name: `f${Math.random()}`, points, durationSeconds: 60, key: byIp });
    let work = 0;
    const app = createServiceApp({
      logger,
      routes: (a) =>
        a.post('/login', async (req, res) => {
          if (!(await limit.check(byIp(req), res))) return;
          work++;
          if (req.query.ok === '1') return void res.json({ ok: true });
          if (!(await limit.consume(byIp(req), res))) return;
          res.status(401).json({ error: 'no' });
        }),
    });
    return { app, work: () => work };
  }

  it('lets successes through freely, refuses everything once the failures are used up', async () => {
    const { app, work } = failureCountingApp(redis, 2);
    for (let i = 0; i < 5; i++) expect((await request(app).post('/login?ok=1')).status).toBe(200);
    expect((await request(app).post('/login')).status).toBe(401);
    expect((await request(app).post('/login')).status).toBe(401);
    const done = work();
    const blocked = await request(app).post('/login?ok=1');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Refused before the work: a correct attempt is not even tried.
    expect(work()).toBe(done);
    // Another address is not affected.
    expect((await request(app).post('/login?ok=1').set('X-Forwarded-For', '203.0.113.4')).status).toBe(200);
  });

  it('lets requests through when Redis is unreachable', async () => {
    const { app } = failureCountingApp(deadRedis, 1);
    expect((await request(app).post('/login?ok=1')).status).toBe(200);
  });
});

describe('limitFor: the catalogue is the one source of the limits', () => {
  it("gives every rate-limited operation's catalogue limit (and its session limit)", () => {
    const limited = ENDPOINTS.filter((e) => e.rateLimit);
    expect(limited.length).toBeGreaterThan(20);
    for (const e of limited) {
      const window = WINDOW_SECONDS[e.rateLimit!.window];
      expect([e.operationId, limitFor(e.operationId)]).toEqual([
        e.operationId,
        { points: e.rateLimit!.limit, durationSeconds: window },
      ]);
      if (e.rateLimit!.session)
        expect(limitFor(e.operationId, { session: true })).toEqual({
          points: e.rateLimit!.session.limit,
          durationSeconds: window,
        });
    }
  });

  it('refuses an operation without a limit, and a shared bucket whose operations disagree', () => {
    expect(() => limitFor('nope')).toThrow('nope: no rate limit in the endpoint catalogue');
    expect(() => limitFor('getSessionUser')).toThrow('no rate limit');
    expect(() => limitFor('listApps', { session: true })).toThrow('no session limit');
    expect(() => limitFor(['listApps', 'submitApp'])).toThrow('different limits');
    expect(limitFor(['listApps', 'getApp', 'listAppCategories'])).toEqual({ points: 200, durationSeconds: 60 });
  });
});
