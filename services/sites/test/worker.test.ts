// The worker's HTTP side built as worker/main.ts builds it: probes and queue metrics.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Queue } from 'bullmq';
import {
  createLogger,
  createMetrics,
  createPgAdapter,
  createRedis,
  queuePrefix,
  waitForRedis,
  type Redis,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  testRedisPrefix,
  type TestDatabase,
  deadRedis as createDeadRedis,
} from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { buildWorkerApp } from '../src/worker/app.js';
import { SCRAPE_QUEUE, TAG_QUEUE, createQueues } from '../src/worker/queues.js';
import { opsHandlerOf } from '@svc/service-kit';

/** The private ops listener's handler of an app (/metrics, the detailed /readyz). */
const ops = (app: object) => opsHandlerOf(app)!;

const logger = createLogger('sites-worker-test', 'silent');
const migrations = new URL('../prisma/migrations', import.meta.url).pathname;
const prefix = testRedisPrefix();

let testDb: TestDatabase;
let db: PrismaClient;
let redis: Redis;
let queues: Record<string, Queue>;
const extra: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  testDb = await createTestDatabase(migrations);
  db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 2 }) });
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'sites-worker-test', forQueues: true });
  await waitForRedis(redis);
  queues = createQueues(redis, prefix);
});

afterAll(async () => {
  for (const close of extra) await close();
  await Promise.all(Object.values(queues ?? {}).map((q) => q.close()));
  await deleteRedisPrefix(redis, prefix);
  await db?.$disconnect();
  redis?.disconnect();
  await testDb?.drop();
});

describe('sites worker app', () => {
  it('names its queues and keeps them under REDIS_PREFIX', () => {
    expect([SCRAPE_QUEUE, TAG_QUEUE]).toEqual(['scrape', 'tag']);
    // One node keeps the untagged prefix it always had (a Redis Cluster: kit redis-cluster.test.ts).
    expect(queuePrefix(prefix, redis)).toBe(`${prefix}bull`);
  });

  it('GET /healthz is 200 and /readyz 200 with PostgreSQL and Redis up', async () => {
    const app = buildWorkerApp({ logger, db, redis, queues });
    expect((await request(app).get('/healthz')).status).toBe(200);
    const res = await request(ops(app)).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
  });

  it('GET /readyz is 503 when Redis is unreachable', async () => {
    const deadRedis = createDeadRedis();
    extra.push(async () => deadRedis.disconnect());
    const res = await request(
      ops(buildWorkerApp({ logger, db, redis: deadRedis, queues: {} })),
    ).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'unavailable' });
  });

  it('reports queue depths in /metrics', async () => {
    await queues[SCRAPE_QUEUE]!.add('scrape', { siteId: 'abc' });
    const res = await request(
      ops(buildWorkerApp({ logger, db, redis, queues, metrics: createMetrics('sites-worker') })),
    ).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      'queue_jobs{queue="scrape",state="waiting",service="sites-worker"} 1',
    );
    expect(res.text).toContain(
      'queue_jobs{queue="tag",state="waiting",service="sites-worker"} 0',
    );
    // The job sits under the test prefix, not BullMQ's global default.
    expect(await redis.exists(`${prefix}bull:scrape:meta`)).toBe(1);
  });

  it('answers a JSON 404 for anything else', async () => {
    const res = await request(buildWorkerApp({ logger, db, redis, queues })).get('/api/sites');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });
});
