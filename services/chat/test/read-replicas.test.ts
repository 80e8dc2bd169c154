// GET /api/messages on a real primary and streaming replica (the kit's replica harness):
// the list is read on the replica, a post goes to the primary, and with the replica stopped
// the list comes from the primary without an error while /readyz stays 200, degraded.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  createLogger,
  createMetrics,
  createPgAdapter,
  createReadRouter,
  createRedis,
  opsHandlerOf,
  replicaName,
  resolveReplicaTargets,
  waitForRedis,
  type Redis,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  eventually,
  generateTestKeyPair,
  startReplicaCluster,
  testRedisPrefix,
  type TestDatabase,
  type TestReplicaCluster,
} from '@svc/service-kit/testing';
import type { Express } from 'express';
import { buildApp } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { CHAT_READS, type ChatReads } from '../src/store/read-routing.js';
import { createChatStore } from '../src/store/store.js';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger('chat-replica-test', 'silent');
const metrics = createMetrics('chat');
const redisPrefix = testRedisPrefix();

let cluster: TestReplicaCluster;
let database: TestDatabase;
let db: PrismaClient;
let redis: Redis;
let reads: ChatReads;
let app: Express;

beforeAll(async () => {
  cluster = await startReplicaCluster();
  database = await createTestDatabase(migrationsDir, { url: cluster.primary.url });
  db = new PrismaClient({ adapter: createPgAdapter(database.target, { max: 4 }) });
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'chat-replica-test' });
  await waitForRedis(redis);
  const [replicaTarget] = resolveReplicaTargets({ shared: cluster.replica.url }, database.target);
  const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget!, { max: 4 }) });
  reads = createReadRouter({
    service: 'chat',
    routing: CHAT_READS,
    primary: createChatStore(db),
    primaryTarget: database.target,
    replicas: [
      {
        name: replicaName(replicaTarget!),
        target: replicaTarget!,
        client: createChatStore(replicaDb),
        close: () => replicaDb.$disconnect(),
      },
    ],
    redis,
    redisPrefix,
    registry: metrics.registry,
    logger,
    pollMs: 100,
  });
  app = buildApp({
    logger,
    metrics,
    db,
    reads,
    redis,
    redisPrefix,
    publicKey: generateTestKeyPair().publicKey,
    ipHashSecret: 'test-ip-secret',
    internalToken: 'test-internal-token',
  });
}, 90_000);

afterAll(async () => {
  await reads?.close();
  await db?.$disconnect();
  if (redis) {
    await deleteRedisPrefix(redis, redisPrefix);
    redis.disconnect();
  }
  await cluster?.stop();
});

async function listReads(): Promise<{ primary: number; replica: number }> {
  const { values } = await metrics.registry.getSingleMetric('db_reads_total')!.get();
  const of = (target: string) =>
    values.find((v) => v.labels.read === 'messages' && v.labels.target === target)?.value ?? 0;
  return { primary: of('primary'), replica: of('replica') };
}

async function replicaCaughtUp(): Promise<void> {
  const target = await reads.monitor!.primaryLsn();
  await eventually(() => {
    const [v] = reads.monitor!.views();
    return v!.usable && v!.replayLsn !== null && v!.replayLsn >= target ? true : undefined;
  });
}

describe('GET /api/messages on a read replica', () => {
  it('lists from the replica what was posted on the primary', async () => {
    const posted = await request(app)
      .post('/api/messages')
      .set('X-Forwarded-For', '203.0.113.7')
      .send({ content: 'hello from the primary' });
    expect(posted.status).toBe(201);
    await replicaCaughtUp();
    const before = await listReads();
    const res = await request(app).get('/api/messages?limit=10');
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: { content: string }) => m.content)).toContain(
      'hello from the primary',
    );
    const after = await listReads();
    expect(after.replica - before.replica).toBe(1);
    expect(after.primary - before.primary).toBe(0);
  });

  it('lists from the primary without an error when the replica stops; /readyz 200 degraded', async () => {
    await replicaCaughtUp();
    await cluster.stopReplica();
    try {
      const before = await listReads();
      const res = await request(app).get('/api/messages?limit=10');
      expect(res.status).toBe(200);
      expect(res.body.messages.length).toBeGreaterThan(0);
      expect((await listReads()).primary - before.primary).toBe(1);
      const ready = await request(opsHandlerOf(app)!).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({
        postgres: 'ok',
        redis: 'ok',
        postgres_replicas: 'degraded',
      });
    } finally {
      await cluster.startReplica();
    }
  }, 60_000);
});
