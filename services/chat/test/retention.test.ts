// Chat's retention (docs/decisions/036-chat-retention.md) against real PostgreSQL and Redis, with
// rows dated in the past: messages older than CHAT_RETENTION_DAYS go with their likes, younger
// ones stay, audit entries stay and the audit page marks their message as removed by
// retention; the sweep deletes in batches read from messages_recent_idx; a like racing the
// deletion is a 404; the `chat-retention` job scheduler runs sweeps through BullMQ; a
// PostgreSQL outage in the middle of a sweep fails that job and the next one finishes the work.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Registry } from 'prom-client';
import { AuditPageResponse } from '@svc/types';
import { createPgAdapter, createRedis, type Redis } from '@svc/service-kit';
import { TEST_REDIS_URL, eventually, startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { sweepOldMessages } from '../src/actions/sweep-old-messages.js';
import { createRetentionStore, type RetentionStore } from '../src/store/retention-store.js';
import {
  RETENTION_QUEUE,
  RETENTION_SCHEDULER_ID,
  startRetentionWorker,
  type RetentionWorker,
} from '../src/worker/retention-worker.js';
import { retentionCutoff } from '../src/domain/retention.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { startHarness, type Harness } from './harness.js';

const DAY_MS = 24 * 3600_000;
const MINUTE_MS = 60_000;
const DAYS = 30;

let h: Harness;
let pg: TcpProxy;
let store: RetentionStore;
let moderator: string;
beforeAll(async () => {
  pg = await startTcpProxy(5432);
  h = await startHarness({ dbTarget: (t) => ({ ...t, host: '127.0.0.1', port: pg.port }) });
  store = createRetentionStore(h.db);
  moderator = h.sessionCookie({ id: 'mod-retention', username: 'mod', isModerator: true });
});
afterAll(async () => {
  await h.close();
  await pg.close();
});

/** A message `ageMs` old, written as the room writes one, with `likes` likes. */
async function seed(
  id: string,
  ageMs: number,
  opts: { likes?: number; type?: 'chat' | 'system' | 'entrance'; senderName?: string } = {},
) {
  const likes = opts.likes ?? 0;
  const system = opts.type === 'system';
  await h.db.message.create({
    data: {
      id,
      type: opts.type ?? 'chat',
      content: `message ${id}`,
      senderName: opts.senderName ?? (system ? 'System' : 'Visitor #ABCD'),
      senderLocation: null,
      senderIpHash: system || opts.senderName === 'Deleted user' ? null : `hash-of-${id}`,
      likeCount: likes,
      createdAt: new Date(Date.now() - ageMs),
      likes: { create: Array.from({ length: likes }, (_, i) => ({ likerKey: `ip:liker-${i}` })) },
    },
  });
}

const idsLeft = async (ids: string[]) =>
  (await h.db.message.findMany({ where: { id: { in: ids } }, select: { id: true } }))
    .map((r) => r.id)
    .sort();
const likesOf = (ids: string[]) => h.db.messageLike.count({ where: { messageId: { in: ids } } });
const auditRows = () =>
  h.db.auditLog
    .findMany({ orderBy: { id: 'asc' } })
    .then((rows) => rows.map((r) => ({ ...r, id: r.id.toString() })));

describe('the sweep', () => {
  const OLD = ['old-chat', 'old-deleted', 'old-system', 'old-gone-user', 'old-muted', 'edge-old'];
  const YOUNG = ['edge-young', 'young'];

  it('deletes messages older than the retention with their likes, in batches; younger ones and the audit log stay', async () => {
    await seed('old-chat', 31 * DAY_MS, { likes: 2 });
    await seed('old-deleted', 40 * DAY_MS, { likes: 1 });
    await seed('old-system', 90 * DAY_MS, { type: 'system' });
    // An account deleted earlier: its messages stay as "Deleted user" until retention.
    await seed('old-gone-user', 35 * DAY_MS, { senderName: 'Deleted user', likes: 1 });
    await seed('old-muted', 32 * DAY_MS);
    await seed('edge-old', DAYS * DAY_MS + MINUTE_MS);
    await seed('edge-young', DAYS * DAY_MS - MINUTE_MS, { likes: 1 });
    await seed('young', DAY_MS, { likes: 3 });
    // Moderation about old and young messages: these entries must outlive the messages.
    await h.room.deleteMessage('old-deleted', 'mod-retention');
    await h.room.mute('old-muted', 30, 'mod-retention', 'spam');
    await h.room.deleteMessage('young', 'mod-retention');
    const auditBefore = await auditRows();
    expect(auditBefore.map((e) => e.action)).toEqual([
      'message.deleted',
      'sender.muted',
      'message.deleted',
    ]);
    expect(await likesOf(OLD)).toBe(4);

    const perBatch: number[] = [];
    const outcome = await sweepOldMessages(store, {
      cutoff: retentionCutoff(new Date(), DAYS),
      batchSize: 2,
      onBatch: (deleted) => void perBatch.push(deleted),
    });
    // Six old rows in batches of two: three full batches, then one that finds nothing.
    expect(perBatch).toEqual([2, 2, 2, 0]);
    expect(outcome).toEqual({ deleted: 6, batches: 4 });
    expect(await idsLeft([...OLD, ...YOUNG])).toEqual(['edge-young', 'young']);
    expect(await likesOf(OLD)).toBe(0);
    expect(await likesOf(YOUNG)).toBe(4);
    expect(await h.db.message.findUnique({ where: { id: 'young' } })).toMatchObject({
      likeCount: 3,
    });
    // Append-only: every entry is still there, unchanged.
    expect(await auditRows()).toEqual(auditBefore);

    // A second sweep finds nothing: one statement, no row.
    expect(
      await sweepOldMessages(store, { cutoff: retentionCutoff(new Date(), DAYS), batchSize: 2 }),
    ).toEqual({ deleted: 0, batches: 1 });
  });

  it('the audit page marks an entry whose message retention removed, and only those', async () => {
    const res = await request(h.app)
      .get('/api/moderation/chat/audit')
      .set('Cookie', moderator)
      .query({ limit: 100 });
    expect(res.status).toBe(200);
    const page = AuditPageResponse.parse(res.body);
    const byTarget = Object.fromEntries(
      page.entries.map((e) => [
        `${e.action} ${e.target_type === 'message' ? e.target_id : 'sender'}`,
        e,
      ]),
    );
    expect(byTarget['message.deleted old-deleted']).toMatchObject({ target_removed: 'retention' });
    // The message is still there: nothing to mark.
    expect(Object.keys(byTarget['message.deleted young']!)).not.toContain('target_removed');
    // A sender is not a message (the mute names the message it was given for in `after`).
    expect(Object.keys(byTarget['sender.muted sender']!)).not.toContain('target_removed');
    expect(byTarget['sender.muted sender']!.after).toMatchObject({ message_id: 'old-muted' });

    const one = await request(h.app)
      .get('/api/moderation/chat/audit')
      .set('Cookie', moderator)
      .query({ target_type: 'message', target_id: 'old-deleted' });
    expect(one.body.entries).toHaveLength(1);
    expect(one.body.entries[0]).toMatchObject({
      action: 'message.deleted',
      target_removed: 'retention',
    });
  });

  it('reads the oldest rows from messages_recent_idx, without a sort', async () => {
    const plan = await h.db.$transaction(async (tx) => {
      // The test table is tiny: rule out the scans a planner only takes for a few rows, to see
      // that the index gives the order and no sort is needed (as on a large table).
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
      const rows = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN SELECT id FROM messages WHERE created_at < now() - interval '30 days'
         ORDER BY created_at LIMIT 1000 FOR UPDATE SKIP LOCKED`,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Scan Backward using messages_recent_idx/);
    expect(plan).not.toMatch(/Sort/);
  });

  it('a like waiting on a message the sweep is deleting is a 404, not a 500', async () => {
    await seed('racing', 31 * DAY_MS);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let sweeperPid!: (pid: number) => void;
    const pid = new Promise<number>((r) => (sweeperPid = r));
    // A sweep's DELETE, held open until the like waits on the row.
    const sweeping = h.db.$transaction(
      async (tx) => {
        const [me] = await tx.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`;
        expect(await tx.$executeRaw`DELETE FROM messages WHERE id = 'racing'`).toBe(1);
        sweeperPid(me!.pid);
        await held;
      },
      { timeout: 15_000 },
    );
    const blocker = await pid;
    const like = request(h.app)
      .post('/api/messages/racing/like')
      .set('X-Forwarded-For', '10.77.0.1')
      .then((r) => r);
    await eventually(
      async () => {
        const [row] = await h.db.$queryRaw<Array<{ n: number }>>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE ${blocker}::int = ANY(pg_blocking_pids(pid))`;
        return row!.n > 0 ? true : undefined;
      },
      { ms: 10_000, what: 'the like to wait on the row' },
    );
    release();
    await sweeping;
    const res = await like;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Message not found' });
    expect(await likesOf(['racing'])).toBe(0);
  });
});

describe('the chat-retention job scheduler', () => {
  let queueRedis: Redis;
  let retention: RetentionWorker;
  let registry: Registry;
  const metric = async (name: string) =>
    (await registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;

  beforeAll(async () => {
    // Three old messages waiting before the first sweep.
    for (const id of ['job-1', 'job-2', 'job-3']) await seed(id, 45 * DAY_MS, { likes: 1 });
    queueRedis = createRedis(TEST_REDIS_URL, h.logger, { forQueues: true });
    registry = new Registry();
    retention = startRetentionWorker({
      store,
      connection: queueRedis,
      redisPrefix: h.redisPrefix,
      logger: h.logger,
      retentionDays: DAYS,
      registry,
      batchSize: 2,
      everyMs: 300,
    });
    await retention.scheduled;
  });
  afterAll(async () => {
    await retention.close();
    queueRedis.disconnect();
  });

  it('runs sweeps on its own queue, one scheduler, again and again', async () => {
    const scheduler = await retention.queue.getJobScheduler(RETENTION_SCHEDULER_ID);
    expect(scheduler).toMatchObject({ every: 300, name: 'sweep' });
    expect(retention.worker.name).toBe(RETENTION_QUEUE);
    // The first sweep: three messages in two batches.
    await eventually(
      async () => ((await idsLeft(['job-1', 'job-2', 'job-3'])).length === 0 ? true : undefined),
      {
        ms: 10_000,
        what: 'the first sweep',
      },
    );
    const [done] = await eventually(async () => {
      const jobs = await retention.queue.getJobs(['completed']);
      const found = jobs.filter(
        (j) => (j.returnvalue as { deleted?: number } | null)?.deleted === 3,
      );
      return found.length ? found : undefined;
    });
    expect(done!.returnvalue).toEqual({ deleted: 3, batches: 2 });
    expect(done!.data).toEqual({});
    expect(await likesOf(['job-1', 'job-2', 'job-3'])).toBe(0);
    // A message that comes of age later goes in a later run of the same scheduler.
    await seed('job-later', 31 * DAY_MS);
    await eventually(async () => ((await idsLeft(['job-later'])).length === 0 ? true : undefined), {
      ms: 10_000,
      what: 'a later sweep',
    });
    expect(await metric('chat_retention_messages_deleted_total')).toBe(4);
    expect(await metric('chat_retention_sweep_failures_total')).toBe(0);
    expect(await metric('chat_retention_overdue_seconds')).toBe(0);
    // Still one scheduler for the queue, however many sweeps ran.
    expect(await retention.queue.getJobSchedulersCount()).toBe(1);
  });

  it('a PostgreSQL outage in the middle of a sweep fails that job; the next run finishes the work', async () => {
    const ids = ['cut-1', 'cut-2', 'cut-3', 'cut-4', 'cut-5'];
    // Cut PostgreSQL once a sweep of these rows has committed its first full batch, with more to do.
    let cutAfterFirstBatch = true;
    let restored = false;
    const onProgress = (_job: unknown, progress: unknown) => {
      const soFar = progress as { deleted: number; batches: number };
      if (cutAfterFirstBatch && soFar.batches === 1 && soFar.deleted === 2) {
        cutAfterFirstBatch = false;
        void pg.cut();
      }
    };
    const failed: string[] = [];
    const onFailed = (_job: unknown, err: Error) => failed.push(err.message);
    retention.worker.on('progress', onProgress);
    retention.worker.on('failed', onFailed);
    // Beside the proxy, to look while the service cannot.
    const direct = new PrismaClient({ adapter: createPgAdapter(h.database.target, { max: 1 }) });
    try {
      const deletedBefore = await metric('chat_retention_messages_deleted_total');
      // All five at once, so that one sweep meets them together.
      await h.db.$transaction(
        ids.map((id) =>
          h.db.message.create({
            data: {
              id,
              content: `message ${id}`,
              senderName: 'Visitor #ABCD',
              senderIpHash: `hash-of-${id}`,
              likeCount: 1,
              createdAt: new Date(Date.now() - 33 * DAY_MS),
              likes: { create: [{ likerKey: 'ip:liker-0' }] },
            },
          }),
        ),
      );
      await eventually(() => (failed.length > 0 ? true : undefined), {
        ms: 15_000,
        what: 'the sweep to fail',
      });
      expect(cutAfterFirstBatch).toBe(false);
      // The first batch committed and stays done; the sweep stopped at the next statement.
      expect(await direct.message.count({ where: { id: { in: ids } } })).toBe(3);
      expect(await metric('chat_retention_sweep_failures_total')).toBeGreaterThanOrEqual(1);
      // The gauge says it cannot tell while PostgreSQL is away.
      expect(await metric('chat_retention_overdue_seconds')).toBe(-1);
      await pg.restore();
      restored = true;
      // The batch committed before the cut stays done; the next runs delete the rest.
      await eventually(async () => ((await idsLeft(ids)).length === 0 ? true : undefined), {
        ms: 15_000,
        what: 'a sweep after the outage',
      });
      expect(await likesOf(ids)).toBe(0);
      expect(await metric('chat_retention_messages_deleted_total')).toBe(deletedBefore + 5);
      expect(await metric('chat_retention_overdue_seconds')).toBe(0);
    } finally {
      retention.worker.off('progress', onProgress);
      retention.worker.off('failed', onFailed);
      if (!restored) await pg.restore();
      await direct.$disconnect();
    }
  }, 60_000);
});
