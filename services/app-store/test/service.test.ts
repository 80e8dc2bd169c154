// The app's kit endpoints (health, readiness, metrics, JSON 404) with real PostgreSQL and
// Redis, and readiness with each dependency unreachable.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createMetrics, createPgAdapter } from '@svc/service-kit';
import { internalUserPath } from '@svc/types';
import { deadRedis as createDeadRedis } from '@svc/service-kit/testing';
import { buildApp, type AppDeps } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { startHarness, type Harness } from './harness.js';
import { opsHandlerOf } from '@svc/service-kit';

/** The private ops listener's handler of an app (/metrics, the detailed /readyz). */
const ops = (app: object) => opsHandlerOf(app)!;

let h: Harness;
const extra: Array<() => Promise<unknown>> = [];
let base: AppDeps;

beforeAll(async () => {
  h = await startHarness();
  base = {
    logger: (await import('@svc/service-kit')).createLogger('app-store-test', 'silent'),
    db: h.db,
    listingPool: h.listingPool,
    redis: h.redis,
    redisPrefix: h.redisPrefix,
    publicKey: h.keys.publicKey,
    systemMessages: { nudge: () => {} },
    internalToken: 'app-store-test-internal-token',
  };
});

afterAll(async () => {
  for (const close of extra) await close();
  await h.close();
});

describe('app-store app', () => {
  it('GET /healthz is 200', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 with PostgreSQL and Redis up', async () => {
    const res = await request(ops(h.app)).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('GET /readyz is 503 when Redis is unreachable', async () => {
    const deadRedis = createDeadRedis();
    extra.push(async () => deadRedis.disconnect());
    const res = await request(ops(buildApp({ ...base, redis: deadRedis }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unavailable',
      checks: { postgres: 'ok', redis: 'unavailable' },
    });
  });

  it('GET /readyz is 503 when PostgreSQL is unreachable', async () => {
    const deadDb = new PrismaClient({
      adapter: createPgAdapter({ ...h.database.target, port: 1 }),
    });
    extra.push(() => deadDb.$disconnect());
    const res = await request(ops(buildApp({ ...base, db: deadDb }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'unavailable', redis: 'ok' });
  });

  it('answers a JSON 404 for unknown paths', async () => {
    for (const path of ['/nope', '/api/v1', '/api/v1/nope', '/api/v1/apps/a/b/c']) {
      const res = await request(h.app).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: 'Not found' });
    }
  });

  it('carries X-Request-Id on API answers', async () => {
    const res = await request(h.app).get('/api/v1/categories').set('X-Request-Id', 'req-abc-123');
    expect(res.headers['x-request-id']).toBe('req-abc-123');
  });

  it('serves Prometheus metrics when given a registry', async () => {
    const res = await request(ops(buildApp({ ...base, metrics: createMetrics('app-store') }))).get(
      '/metrics',
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });

  it("counts the internal deletions of a user's data", async () => {
    const app = buildApp({ ...base, metrics: createMetrics('app-store') });
    for (let i = 0; i < 2; i++)
      await request(app)
        .delete(internalUserPath('never-known-user'))
        .set('X-Internal-Token', base.internalToken)
        .send({ pseudonym: 'deleted-user-0123456789abcdef' })
        .expect(204);
    const res = await request(ops(app)).get('/metrics');
    expect(res.text).toMatch(/^user_data_deletions_total\{service="app-store"\} 2$/m);
  });
});
