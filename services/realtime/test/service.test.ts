// The app built as main.ts builds it, against the real Redis.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  createLogger,
  createMetrics,
  createRedis,
  waitForRedis,
  type Redis,
} from '@svc/service-kit';
import { TEST_REDIS_URL, deadRedis as createDeadRedis } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';
import { opsHandlerOf } from '@svc/service-kit';

/** The private ops listener's handler of an app (/metrics, the detailed /readyz). */
const ops = (app: object) => opsHandlerOf(app)!;

const logger = createLogger('realtime-test', 'silent');

let redis: Redis;
const extra: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'realtime-test' });
  await waitForRedis(redis);
});

afterAll(async () => {
  for (const close of extra) await close();
  redis?.disconnect();
});

describe('realtime app', () => {
  it('GET /healthz is 200', async () => {
    const res = await request(buildApp({ logger, redis })).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 with Redis up', async () => {
    const res = await request(ops(buildApp({ logger, redis }))).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { redis: 'ok' } });
  });

  it('GET /readyz is 503 when Redis is unreachable', async () => {
    const deadRedis = createDeadRedis();
    extra.push(async () => deadRedis.disconnect());
    const res = await request(ops(buildApp({ logger, redis: deadRedis }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { redis: 'unavailable' } });
  });

  it('answers plain HTTP on /api/ws with 426 (only WebSocket handshakes are served)', async () => {
    const res = await request(buildApp({ logger, redis })).get('/api/ws');
    expect(res.status).toBe(426);
    expect(res.headers.upgrade).toBe('websocket');
    expect(res.body).toEqual({ error: 'Upgrade required' });
  });

  it('answers a JSON 404 for unknown paths', async () => {
    const app = buildApp({ logger, redis });
    for (const path of ['/nope', '/api/ws/x']) {
      const res = await request(app).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: 'Not found' });
    }
  });

  it('serves Prometheus metrics when given a registry', async () => {
    const res = await request(
      ops(buildApp({ logger, redis, metrics: createMetrics('realtime') })),
    ).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });
});
