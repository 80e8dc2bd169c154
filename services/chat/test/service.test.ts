// The app built as main.ts builds it, against a fresh schema and the real Redis.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  createLogger,
  createMetrics,
  createPgAdapter,
  createRedis,
  waitForRedis,
  type Redis,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  type TestDatabase,
  deadRedis as createDeadRedis,
  generateTestKeyPair,
} from '@svc/service-kit/testing';
import { buildApp, type AppDeps } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { opsHandlerOf } from '@svc/service-kit';

/** The private ops listener's handler of an app (/metrics, the detailed /readyz). */
const ops = (app: object) => opsHandlerOf(app)!;

const logger = createLogger('chat-test', 'silent');
const migrations = new URL('../prisma/migrations', import.meta.url).pathname;

let testDb: TestDatabase;
let db: PrismaClient;
let redis: Redis;
const extra: Array<() => Promise<unknown>> = [];
const secrets = {
  redisPrefix: 'test:chat-service:',
  publicKey: generateTestKeyPair().publicKey,
  ipHashSecret: 's',
  internalToken: 't',
};
const app = (deps: Omit<AppDeps, keyof typeof secrets>) => buildApp({ ...deps, ...secrets });

beforeAll(async () => {
  testDb = await createTestDatabase(migrations);
  db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 2 }) });
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'chat-test' });
  await waitForRedis(redis);
});

afterAll(async () => {
  for (const close of extra) await close();
  await db?.$disconnect();
  redis?.disconnect();
  await testDb?.drop();
});

describe('chat app', () => {
  it('GET /healthz is 200', async () => {
    const res = await request(app({ logger, db, redis })).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 with PostgreSQL and Redis up', async () => {
    const res = await request(ops(app({ logger, db, redis }))).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('GET /readyz is 503 when Redis is unreachable', async () => {
    const deadRedis = createDeadRedis();
    extra.push(async () => deadRedis.disconnect());
    const res = await request(ops(app({ logger, db, redis: deadRedis }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unavailable',
      checks: { postgres: 'ok', redis: 'unavailable' },
    });
  });

  it('GET /readyz is 503 when PostgreSQL is unreachable', async () => {
    const deadDb = new PrismaClient({ adapter: createPgAdapter({ ...testDb.target, port: 1 }) });
    extra.push(() => deadDb.$disconnect());
    const res = await request(ops(app({ logger, db: deadDb, redis }))).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'unavailable', redis: 'ok' });
  });

  it('answers a JSON 404 for unknown paths', async () => {
    const chat = app({ logger, db, redis });
    for (const path of ['/nope', '/api/messages/abc', '/internal/nope', '/api/internal/entrance']) {
      const res = await request(chat).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: 'Not found' });
    }
  });

  it('serves Prometheus metrics when given a registry', async () => {
    const res = await request(ops(app({ logger, db, redis, metrics: createMetrics('chat') }))).get(
      '/metrics',
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });
});
