// The app's probes and fallbacks: health, readiness with each dependency down, metrics,
// JSON 404s.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createMetrics, createPgAdapter } from '@svc/service-kit';
import { deadRedis as createDeadRedis } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { startHarness, type Harness } from './api-harness.js';
import { opsHandlerOf } from '@svc/service-kit';

/** The private ops listener's handler of an app (/metrics, the detailed /readyz). */
const ops = (app: object) => opsHandlerOf(app)!;

let h: Harness;
const extra: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  for (const close of extra) await close();
  await h?.close();
});

describe('sites app', () => {
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
    const res = await request(ops(buildApp({ ...h.deps, redis: deadRedis }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unavailable',
      checks: { postgres: 'ok', redis: 'unavailable' },
    });
  });

  it('GET /readyz is 503 when PostgreSQL is unreachable', async () => {
    const deadDb = new PrismaClient({ adapter: createPgAdapter({ ...h.dbTarget, port: 1 }) });
    extra.push(() => deadDb.$disconnect());
    const res = await request(ops(buildApp({ ...h.deps, db: deadDb }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'unavailable', redis: 'ok' });
  });

  it('answers a JSON 404 for unknown paths', async () => {
    for (const path of ['/nope', '/api/nope', '/api/sites/abc/def', '/api/clicks']) {
      const res = await request(h.app).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: 'Not found' });
    }
    // /api/sites/{id} is a path: an unknown id is the site lookup's 404.
    const site = await request(h.app).get('/api/sites/abc');
    expect(site.status).toBe(404);
    expect(site.body).toEqual({ error: 'Site not found' });
  });

  it('serves Prometheus metrics when given a registry', async () => {
    const res = await request(ops(buildApp({ ...h.deps, metrics: createMetrics('sites') }))).get(
      '/metrics',
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });
});
