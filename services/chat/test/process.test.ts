// The real entry point: starts on a migrated schema, serves messages, consumes a system
// message posted through the kit's producer, sweeps a message past its retention at start,
// stops cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLogger,
  createPgAdapter,
  createRedis,
  createSystemMessageProducer,
} from '@svc/service-kit';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  clearRedisPrefix,
  createTestDatabase,
  eventually,
  spawnService,
  startTcpProxy,
  testRedisPrefix,
  waitForOk,
  type ServiceProcess,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { migrationsDir } from './harness.js';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const prefix = testRedisPrefix();

let proc: ServiceProcess | undefined;
let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase(migrationsDir);
});
afterAll(async () => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
  await clearRedisPrefix(prefix);
  await testDb.drop();
});

describe('chat process', () => {
  it('serves messages, stores queued system messages, sweeps old ones, then exits 0 within 10 s of SIGTERM', async () => {
    // A message past the 30 days of retention, there before the process starts.
    const db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 1 }) });
    await db.message.create({
      data: {
        id: 'too-old',
        content: 'from last year',
        senderName: 'Visitor #0001',
        createdAt: new Date(Date.now() - 400 * 24 * 3600_000),
      },
    });
    proc = await spawnService({
      cwd: SERVICE_ROOT,
      source: true,
      entry: 'src/main.ts',
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        CHAT_DATABASE_URL: testDb.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
      },
    });
    await waitForOk(proc, '/healthz');
    await waitForOk(proc, '/readyz', 10_000);
    const posted = await fetch(`${proc.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'from the process test' }),
    });
    expect(posted.status).toBe(201);

    const queueRedis = createRedis(TEST_REDIS_URL, createLogger('t', 'silent'), {
      forQueues: true,
    });
    const producer = createSystemMessageProducer(queueRedis, prefix);
    await producer.post({
      content_key: 'app_blocked',
      content_params: { slug: 'p', name: 'Proc' },
    });
    await producer.close();
    queueRedis.disconnect();
    let contents: string[] = [];
    for (let i = 0; i < 100 && !contents.includes('App blocked: Proc'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${proc.url}/api/messages`);
      contents = ((await res.json()) as { messages: Array<{ content: string }> }).messages.map(
        (m) => m.content,
      );
    }
    expect(contents).toEqual(['from the process test', 'App blocked: Proc']);
    // The queue's depth, for the backlog and failed-job alerts (k8s/README.md "Monitoring").
    const metrics = await (await fetch(`${proc.opsUrl}/metrics`)).text();
    expect(metrics).toContain('queue_jobs{queue="chat-system",state="waiting",service="chat"} 0');
    expect(metrics).toContain('queue_jobs{queue="chat-system",state="failed",service="chat"} 0');
    // The first sweep runs at start: the old message is gone.
    await eventually(
      async () => ((await db.message.count({ where: { id: 'too-old' } })) === 0 ? true : undefined),
      { ms: 20_000, what: 'the sweep at start' },
    );
    await db.$disconnect();
    const after = await (await fetch(`${proc.opsUrl}/metrics`)).text();
    expect(after).toContain('chat_retention_messages_deleted_total{service="chat"} 1');
    expect(after).toContain('chat_retention_sweep_failures_total{service="chat"} 0');
    expect(after).toContain('chat_retention_overdue_seconds{service="chat"} 0');
    expect(after).toContain('queue_jobs{queue="chat-retention",state="failed",service="chat"} 0');

    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);

  it('starts and stops within 10 s of SIGTERM while Redis is unreachable', async () => {
    const redis = await startTcpProxy(6379);
    await redis.cut();
    try {
      const down = await spawnService({
        cwd: SERVICE_ROOT,
        source: true,
        entry: 'src/main.ts',
        env: {
          DATABASE_URL: TEST_DATABASE_URL,
          CHAT_DATABASE_URL: testDb.url,
          REDIS_URL: `redis://127.0.0.1:${redis.port}`,
          REDIS_PREFIX: prefix,
        },
      });
      await waitForOk(down, '/healthz');
      expect((await fetch(`${down.url}/readyz`)).status).toBe(503);
      expect(await down.stop(10_000)).toBe(0);
    } finally {
      await redis.restore(); // close() waits for a listening proxy
      await redis.close();
    }
  }, 60_000);
});
