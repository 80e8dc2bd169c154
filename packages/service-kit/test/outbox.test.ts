// The outboxes against real PostgreSQL, Redis and BullMQ: committed rows reach their queue
// once, survive a Redis outage, and are shared between replicas. The system-message outbox
// feeds the chat-system queue; the job outbox any named queue, with the row's job id.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import type pg from 'pg';
import { Registry } from 'prom-client';
import { SYSTEM_MESSAGE_QUEUE } from '@svc/types';
import { createLogger } from '../src/ops/logger.js';
import { createPgPool } from '../src/data/prisma-adapter.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import { closeRedis } from '../src/process/runtime.js';
import {
  INSERT_SYSTEM_MESSAGE_SQL,
  startSystemMessageOutbox,
  type SystemMessageOutbox,
} from '../src/queues/system-message-outbox.js';
import { INSERT_OUTBOX_JOB_SQL, startJobOutbox } from '../src/queues/job-outbox.js';
import { createSystemMessageProducer, queuePrefix } from '../src/queues/system-messages.js';
import {
  TEST_REDIS_URL,
  clearRedisPrefix,
  createTestDatabase,
  startTcpProxy,
  testRedisPrefix,
  type TestDatabase,
} from '../src/testing/index.js';

// The tables as the services' migrations create them.
const DDL = `CREATE TABLE system_message_outbox (
  id BIGSERIAL PRIMARY KEY,
  content_key TEXT NOT NULL,
  content_params JSONB NOT NULL,
  traceparent TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE job_outbox (
  id BIGSERIAL PRIMARY KEY,
  queue TEXT NOT NULL,
  job_name TEXT NOT NULL,
  job_id TEXT,
  payload JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`;

const logger = createLogger('test', 'silent');
const prefix = testRedisPrefix();
let db: TestDatabase;
let pool: pg.Pool;
const redis = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
const queue = new Queue(SYSTEM_MESSAGE_QUEUE, { connection: redis, prefix: queuePrefix(prefix, redis) });
const producer = createSystemMessageProducer(redis, prefix);
const outboxes: SystemMessageOutbox[] = [];
// Two named queues for the job outbox.
const alpha = new Queue('alpha', { connection: redis, prefix: queuePrefix(prefix, redis) });
const beta = new Queue('beta', { connection: redis, prefix: queuePrefix(prefix, redis) });

const start = (over: Partial<Parameters<typeof startSystemMessageOutbox>[0]> = {}) => {
  const o = startSystemMessageOutbox({ pool, producer, logger, service: 'test', ...over });
  outboxes.push(o);
  return o;
};
const insert = (params: Record<string, string>) =>
  pool.query(INSERT_SYSTEM_MESSAGE_SQL, ['site_submitted', JSON.stringify(params)]);
const rowsLeft = async () =>
  Number((await pool.query('SELECT count(*) AS n FROM system_message_outbox')).rows[0].n);
const jobs = async () =>
  (await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).map((j) => ({
    id: j.id,
    data: j.data as unknown,
  }));

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'outbox-'));
  mkdirSync(path.join(dir, '0001_outbox'));
  writeFileSync(path.join(dir, '0001_outbox', 'migration.sql'), DDL);
  db = await createTestDatabase(dir);
  pool = createPgPool(db.target, 4);
  await waitForRedis(redis);
});

afterAll(async () => {
  await Promise.all(outboxes.map((o) => o.stop()));
  await producer.close();
  await queue.close();
  await alpha.close();
  await beta.close();
  await pool.end();
  await db.drop();
  await clearRedisPrefix(prefix);
  await closeRedis(redis);
});

describe('system message outbox', () => {
  it('relays committed rows to the queue with a row-derived job id, then deletes them', async () => {
    const outbox = start();
    await insert({ site_id: 's1', url: 'https://a.example/', domain: 'a.example' });
    await insert({ site_id: 's2', url: 'https://b.example/', domain: 'b.example' });
    expect(await outbox.drain()).toBe(2);
    expect(await rowsLeft()).toBe(0);
    const sent = await jobs();
    expect(sent.map((j) => j.data)).toEqual(
      expect.arrayContaining([
        {
          content_key: 'site_submitted',
          content_params: { site_id: 's1', url: 'https://a.example/', domain: 'a.example' },
        },
        {
          content_key: 'site_submitted',
          content_params: { site_id: 's2', url: 'https://b.example/', domain: 'b.example' },
        },
      ]),
    );
    expect(sent.every((j) => /^test-\d+$/.test(j.id ?? ''))).toBe(true);
    expect(await outbox.drain()).toBe(0);
    await queue.obliterate({ force: true });
  });

  it('a re-post of the same row (crash between post and delete) is one job', async () => {
    await insert({ site_id: 'dup', url: 'https://d.example/', domain: 'd.example' });
    const { rows } = await pool.query('SELECT id::text FROM system_message_outbox');
    const jobId = `test-${rows[0].id}`;
    // What a relay that died before its DELETE committed would already have sent:
    await producer.post(
      {
        content_key: 'site_submitted',
        content_params: { site_id: 'dup', url: 'https://d.example/', domain: 'd.example' },
      },
      { jobId },
    );
    expect(await start().drain()).toBe(1);
    expect((await jobs()).map((j) => j.id)).toEqual([jobId]);
    await queue.obliterate({ force: true });
  });

  it('keeps rows while Redis is unreachable and sends them once it returns', async () => {
    const proxy = await startTcpProxy(6379);
    const cutRedis = createRedis(`redis://127.0.0.1:${proxy.port}`, logger, { forQueues: true });
    await waitForRedis(cutRedis);
    const cutProducer = createSystemMessageProducer(cutRedis, prefix);
    const outbox = start({ producer: cutProducer, postTimeoutMs: 300 });
    try {
      await proxy.cut();
      await insert({ site_id: 'o1', url: 'https://o.example/', domain: 'o.example' });
      await expect(outbox.drain()).rejects.toThrow(/did not answer/);
      expect(await rowsLeft()).toBe(1);

      await proxy.restore();
      await waitForRedis(cutRedis, 10_000);
      // The first post may also arrive from the client's offline buffer: still one job.
      expect(await outbox.drain()).toBe(1);
      expect(await rowsLeft()).toBe(0);
      const sent = await jobs();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.data).toMatchObject({ content_params: { site_id: 'o1' } });
    } finally {
      await outbox.stop();
      await cutProducer.close();
      await closeRedis(cutRedis);
      await proxy.close();
      await queue.obliterate({ force: true });
    }
  });

  it('survives PostgreSQL dropping its connection mid-batch, and relays the row afterwards', async () => {
    const proxy = await startTcpProxy(db.target.port);
    const cutPool = createPgPool({ ...db.target, host: '127.0.0.1', port: proxy.port }, 2);
    // The connection dies while the batch holds its client, inside the transaction.
    const outbox = start({
      pool: cutPool,
      producer: {
        post: async () => {
          await proxy.cut();
          throw new Error('PostgreSQL went away');
        },
      },
    });
    try {
      await insert({ site_id: 'pg1', url: 'https://pg.example/', domain: 'pg.example' });
      await expect(outbox.drain()).rejects.toThrow();
      // Without the client's error listener the process would have crashed by now.
      await new Promise((r) => setTimeout(r, 100));
      expect(await rowsLeft()).toBe(1);
      await proxy.restore();
      expect(await start({ pool: cutPool }).drain()).toBe(1);
      expect((await jobs()).map((j) => j.data)).toEqual([
        expect.objectContaining({ content_params: expect.objectContaining({ site_id: 'pg1' }) }),
      ]);
    } finally {
      await outbox.stop();
      await cutPool.end();
      await proxy.close();
      await queue.obliterate({ force: true });
    }
  });

  it('two replicas draining at once send every row exactly once', async () => {
    for (let i = 0; i < 60; i++)
      await insert({ site_id: `r${i}`, url: `https://r${i}.example/`, domain: `r${i}.example` });
    const a = start({ batch: 7 });
    const b = start({ batch: 7 });
    const [na, nb] = await Promise.all([a.drain(), b.drain()]);
    expect(na + nb).toBe(60);
    const sent = await jobs();
    expect(sent).toHaveLength(60);
    expect(
      new Set(
        sent.map((j) => (j.data as { content_params: { site_id: string } }).content_params.site_id),
      ).size,
    ).toBe(60);
    await queue.obliterate({ force: true });
  });

  it('a nudge relays without waiting for the poll, and the poll catches what no nudge did', async () => {
    const outbox = start({ intervalMs: 60_000 });
    await insert({ site_id: 'n1', url: 'https://n.example/', domain: 'n.example' });
    outbox.nudge();
    await waitUntil(async () => (await rowsLeft()) === 0);
    expect(await jobs()).toHaveLength(1);

    const polling = start({ intervalMs: 50 });
    await insert({ site_id: 'p1', url: 'https://p.example/', domain: 'p.example' });
    await waitUntil(async () => (await rowsLeft()) === 0);
    expect(await jobs()).toHaveLength(2);
    await polling.stop();
    await queue.obliterate({ force: true });
  });

  it('reports the backlog and the relayed count as Prometheus metrics', async () => {
    const registry = new Registry();
    const outbox = start({ registry, intervalMs: 60_000 });
    const value = async (name: string) =>
      (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    await insert({ site_id: 'm1', url: 'https://m.example/', domain: 'm.example' });
    await insert({ site_id: 'm2', url: 'https://m2.example/', domain: 'm2.example' });
    expect(await value('system_message_outbox_waiting')).toBe(2);
    await outbox.drain();
    expect(await value('system_message_outbox_waiting')).toBe(0);
    expect(await value('system_messages_relayed_total')).toBe(2);
    await queue.obliterate({ force: true });
  });

  it('drops a row that is not a valid job instead of blocking the ones behind it', async () => {
    await pool.query(INSERT_SYSTEM_MESSAGE_SQL, ['no_such_key', '{}']);
    await insert({ site_id: 'v1', url: 'https://v.example/', domain: 'v.example' });
    expect(await start().drain()).toBe(2);
    expect(await rowsLeft()).toBe(0);
    expect((await jobs()).map((j) => j.data)).toEqual([
      expect.objectContaining({ content_params: expect.objectContaining({ site_id: 'v1' }) }),
    ]);
    await queue.obliterate({ force: true });
  });
});

describe('job outbox', () => {
  const startJobs = (over: Partial<Parameters<typeof startJobOutbox>[0]> = {}) => {
    const o = startJobOutbox({
      pool,
      logger,
      service: 'test',
      queues: {
        alpha: { queue: alpha, options: { attempts: 3, removeOnComplete: 10 } },
        beta: { queue: beta },
      },
      ...over,
    });
    outboxes.push(o);
    return o;
  };
  const insertJob = (queue: string, name: string, jobId: string | null, payload: object) =>
    pool.query(INSERT_OUTBOX_JOB_SQL, [queue, name, jobId, JSON.stringify(payload)]);
  const jobRowsLeft = async () =>
    Number((await pool.query('SELECT count(*) AS n FROM job_outbox')).rows[0].n);
  const jobsOf = async (q: Queue) =>
    (await q.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).map((j) => ({
      id: j.id,
      name: j.name,
      data: j.data as unknown,
      attempts: j.opts.attempts,
    }));
  const clean = () => Promise.all([alpha, beta].map((q) => q.obliterate({ force: true })));

  it('posts each row to its named queue, with its job id and the queue options, then deletes it', async () => {
    await insertJob('alpha', 'scrape', 'scrape-s1', { siteId: 's1' });
    await insertJob('beta', 'other', null, { n: 1 });
    expect(await startJobs().drain()).toBe(2);
    expect(await jobRowsLeft()).toBe(0);
    expect(await jobsOf(alpha)).toEqual([
      { id: 'scrape-s1', name: 'scrape', data: { siteId: 's1' }, attempts: 3 },
    ]);
    const [other] = await jobsOf(beta);
    expect(other).toMatchObject({ name: 'other', data: { n: 1 } });
    expect(other!.id).toMatch(/^test-\d+$/); // no job id in the row: <service>-<row id>
    await clean();
  });

  it('rows with the same job id make one job (a duplicate request is dropped by BullMQ)', async () => {
    for (let i = 0; i < 3; i++)
      await insertJob('alpha', 'scrape', 'scrape-same', { siteId: 'same' });
    const outbox = startJobs();
    expect(await outbox.drain()).toBe(3);
    await insertJob('alpha', 'scrape', 'scrape-same', { siteId: 'same' });
    expect(await outbox.drain()).toBe(1);
    expect((await jobsOf(alpha)).map((j) => j.id)).toEqual(['scrape-same']);
    await clean();
  });

  it('keeps rows while Redis is unreachable and posts them once it returns', async () => {
    const proxy = await startTcpProxy(6379);
    const cutRedis = createRedis(`redis://127.0.0.1:${proxy.port}`, logger, { forQueues: true });
    await waitForRedis(cutRedis);
    const cutAlpha = new Queue('alpha', { connection: cutRedis, prefix: queuePrefix(prefix, cutRedis) });
    const outbox = startJobs({ queues: { alpha: { queue: cutAlpha } }, postTimeoutMs: 300 });
    try {
      await proxy.cut();
      await insertJob('alpha', 'scrape', 'scrape-o1', { siteId: 'o1' });
      await expect(outbox.drain()).rejects.toThrow(/did not answer/);
      expect(await jobRowsLeft()).toBe(1);
      await proxy.restore();
      await waitForRedis(cutRedis, 10_000);
      expect(await outbox.drain()).toBe(1);
      expect(await jobRowsLeft()).toBe(0);
      expect((await jobsOf(alpha)).map((j) => j.id)).toEqual(['scrape-o1']);
    } finally {
      await outbox.stop();
      await cutAlpha.close();
      await closeRedis(cutRedis);
      await proxy.close();
      await clean();
    }
  });

  it('drops a row for a queue it was not given, without blocking the rows behind it', async () => {
    await insertJob('nope', 'x', 'x-1', {});
    await insertJob('alpha', 'scrape', 'scrape-after', { siteId: 'after' });
    expect(await startJobs().drain()).toBe(2);
    expect(await jobRowsLeft()).toBe(0);
    expect((await jobsOf(alpha)).map((j) => j.id)).toEqual(['scrape-after']);
    await clean();
  });

  it('two replicas draining at once post every row exactly once', async () => {
    for (let i = 0; i < 40; i++) await insertJob('beta', 'n', null, { i });
    const [na, nb] = await Promise.all([
      startJobs({ batch: 6 }).drain(),
      startJobs({ batch: 6 }).drain(),
    ]);
    expect(na + nb).toBe(40);
    expect(new Set((await jobsOf(beta)).map((j) => (j.data as { i: number }).i)).size).toBe(40);
    expect(await jobsOf(beta)).toHaveLength(40);
    await clean();
  });

  it('reports its own backlog and relayed count, beside the system-message metrics', async () => {
    const registry = new Registry();
    start({ registry, intervalMs: 60_000 });
    const outbox = startJobs({ registry, intervalMs: 60_000 });
    const value = async (name: string) =>
      (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    await insertJob('alpha', 'scrape', 'scrape-m1', { siteId: 'm1' });
    expect(await value('job_outbox_waiting')).toBe(1);
    expect(await value('system_message_outbox_waiting')).toBe(0);
    await outbox.drain();
    expect(await value('job_outbox_waiting')).toBe(0);
    expect(await value('outbox_jobs_relayed_total')).toBe(1);
    await clean();
  });
});

async function waitUntil(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
