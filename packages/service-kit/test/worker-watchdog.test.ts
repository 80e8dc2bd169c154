// The job-worker watchdog: its rule as a pure function, then real BullMQ Workers on the
// local Redis: one whose connections stop answering (a loopback proxy that keeps them open
// and forwards nothing) is reported stuck; a healthy one that is busy while jobs wait, and
// one on a paused queue, are not.
import { afterAll, describe, expect, it } from '@jest/globals';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis, type Redis } from '../src/redis/redis.js';
import { startTcpProxy, type TcpProxy } from '../src/testing/tcp-proxy.js';
import { TEST_REDIS_URL, deleteRedisPrefix, testRedisPrefix } from '../src/testing/index.js';
import { nextWatch, watchWorkers, type Observation, type StuckVerdict } from '../src/queues/worker-watchdog.js';

const logger = createLogger('test', 'silent');
const AFTER = 1000;

describe('nextWatch (the rule)', () => {
  const idle = (firstWaiting: string | undefined, over: Partial<Observation> = {}): Observation => ({
    firstWaiting,
    lastActivity: 0,
    running: 0,
    concurrency: 2,
    ...over,
  });

  it('reports a job first in line for the whole bound beside an idle worker', () => {
    const a = nextWatch({}, idle('j1'), 10_000, AFTER);
    expect(a.stuck).toBeUndefined();
    expect(a.state.first).toEqual({ jobId: 'j1', since: 10_000 });
    expect(nextWatch(a.state, idle('j1'), 10_999, AFTER).stuck).toBeUndefined();
    expect(nextWatch(a.state, idle('j1'), 11_000, AFTER).stuck).toEqual({ jobId: 'j1', idleMs: 1000 });
  });

  it('starts over when another job is first in line, or none waits', () => {
    const a = nextWatch({}, idle('j1'), 10_000, AFTER).state;
    const b = nextWatch(a, idle('j2'), 11_500, AFTER);
    expect(b.stuck).toBeUndefined();
    expect(b.state.first).toEqual({ jobId: 'j2', since: 11_500 });
    expect(nextWatch(a, idle(undefined), 11_500, AFTER).state).toEqual({ busyAt: undefined });
  });

  it('starts over when the queue could not be read (Redis down, queue paused, worker closing)', () => {
    const a = nextWatch({}, idle('j1'), 10_000, AFTER).state;
    const unread = nextWatch(a, undefined, 10_500, AFTER);
    expect(unread.state).toEqual({});
    // Back after the outage: the clock restarts, no verdict for the time it was unreadable.
    expect(nextWatch(unread.state, idle('j1'), 11_200, AFTER).stuck).toBeUndefined();
  });

  it('counts idle time from the worker’s last start or finish of a job', () => {
    const a = nextWatch({}, idle('j1'), 10_000, AFTER).state;
    expect(nextWatch(a, idle('j1', { lastActivity: 10_800 }), 11_500, AFTER).stuck).toBeUndefined();
    expect(nextWatch(a, idle('j1', { lastActivity: 10_800 }), 11_800, AFTER).stuck).toEqual({
      jobId: 'j1',
      idleMs: 1000,
    });
  });

  it('counts idle time from the last look that saw every slot taken', () => {
    // A job runs from 9,900 to just before 12,100; BullMQ frees its slot before it writes
    // the end and emits `completed`, so the look at 12,100 sees a free slot, the job behind
    // it still first in line, and the last activity the job's start.
    let state = {};
    for (const now of [10_000, 11_000, 12_000])
      ({ state } = nextWatch(state, idle('j2', { running: 2, lastActivity: 9_900 }), now, AFTER));
    const look = nextWatch(state, idle('j2', { lastActivity: 9_900 }), 12_100, AFTER);
    expect(look.stuck).toBeUndefined();
    expect(nextWatch(look.state, idle('j2', { lastActivity: 9_900 }), 13_000, AFTER).stuck).toEqual({
      jobId: 'j2',
      idleMs: 1000,
    });
  });

  it('never reports a worker with every slot taken', () => {
    const a = nextWatch({}, idle('j1'), 10_000, AFTER).state;
    expect(nextWatch(a, idle('j1', { running: 2 }), 60_000, AFTER).stuck).toBeUndefined();
    expect(nextWatch(a, idle('j1', { running: 1 }), 60_000, AFTER).stuck).toBeDefined();
  });
});

describe('watchWorkers on real Workers', () => {
  const prefix = testRedisPrefix();
  const direct: Redis = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
  // The watchdog's own client, as services give it: a request-path one.
  const watchClient: Redis = createRedis(TEST_REDIS_URL, logger);
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await deleteRedisPrefix(direct, prefix);
    direct.disconnect();
    watchClient.disconnect();
  });

  /**
   * A queue on a direct connection, a Worker whose connections go through `proxy`, and a
   * watchdog on `watchedBy` (default: its own direct client).
   */
  async function setUp(
    name: string,
    work: (job: Job, token?: string) => Promise<unknown>,
    proxy?: TcpProxy,
    watchedBy: Redis = watchClient,
  ) {
    const queue = new Queue(name, { connection: direct, prefix });
    const connection = proxy
      ? createRedis(`redis://127.0.0.1:${proxy.port}`, logger, { forQueues: true })
      : createRedis(TEST_REDIS_URL, logger, { forQueues: true });
    await waitForRedis(connection);
    const worker = new Worker(name, work, { connection, prefix, concurrency: 1 });
    worker.on('error', () => undefined);
    await worker.waitUntilReady();
    const verdicts: Array<StuckVerdict & { queue: string }> = [];
    const watchdog = watchWorkers([worker], {
      connection: watchedBy,
      stuckAfterMs: AFTER,
      checkEveryMs: 100,
      logger,
      onStuck: (v) => verdicts.push(v),
    });
    cleanups.push(async () => {
      await watchdog.stop();
      await Promise.race([worker.close(true), new Promise((r) => setTimeout(r, 1000))]);
      connection.disconnect();
      await proxy?.close();
      await queue.close();
    });
    return { queue, worker, verdicts };
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('reports a Worker whose Redis connections stopped answering, naming the waiting job', async () => {
    const proxy = await startTcpProxy(6379);
    const done: string[] = [];
    const { queue, verdicts } = await setUp('stalled', async () => void done.push('ran'), proxy);
    await queue.add('job', {}, { jobId: 'first' });
    await waitFor(() => done.length === 1);

    proxy.stall();
    await sleep(200);
    await queue.add('job', {}, { jobId: 'second' });
    await waitFor(() => verdicts.length > 0, 8000);
    expect(verdicts.map(({ queue, jobId }) => ({ queue, jobId }))).toEqual([
      { queue: 'stalled', jobId: 'second' },
    ]);
    expect(verdicts[0]!.idleMs).toBeGreaterThanOrEqual(AFTER);
    expect(done).toEqual(['ran']);
    // Reported once: the watchdog has stopped.
    await sleep(500);
    expect(verdicts).toHaveLength(1);
  });

  it('counts a job that ended without an event (delayed by its processor) as ended', async () => {
    // BullMQ emits neither 'completed' nor 'failed' for a job its processor delays: a count
    // of running jobs kept from the events would say the one slot stays taken for good.
    const proxy = await startTcpProxy(6379);
    const { queue, verdicts } = await setUp(
      'delayed',
      async (job, token) => {
        await job.moveToDelayed(Date.now() + 60_000, token);
        throw new DelayedError();
      },
      proxy,
    );
    await queue.add('job', {}, { jobId: 'later' });
    await waitFor(async () => (await queue.getJobState('later')) === 'delayed');

    proxy.stall();
    await sleep(200);
    await queue.add('job', {}, { jobId: 'next' });
    await waitFor(() => verdicts.length > 0, 8000);
    expect(verdicts.map((v) => v.jobId)).toEqual(['next']);
  });

  it('sees past its own connection going half-open with the Worker’s: it reconnects', async () => {
    const proxy = await startTcpProxy(6379);
    const viaProxy = createRedis(`redis://127.0.0.1:${proxy.port}`, logger);
    await waitForRedis(viaProxy);
    cleanups.push(async () => viaProxy.disconnect());
    const done: string[] = [];
    const { queue, verdicts } = await setUp('half-open', async () => void done.push('ran'), proxy, viaProxy);
    await queue.add('job', {}, { jobId: 'first' });
    await waitFor(() => done.length === 1);

    // Every connection open now stops answering; new ones (the watchdog's reconnect) work.
    proxy.stallOpen();
    await queue.add('job', {}, { jobId: 'second' });
    await waitFor(() => verdicts.length > 0, 15_000);
    expect(verdicts.map((v) => v.jobId)).toEqual(['second']);
    expect(done).toEqual(['ran']);
  });

  it('leaves a busy Worker alone while jobs wait behind its running one', async () => {
    const done: string[] = [];
    const { queue, verdicts } = await setUp('busy', async () => {
      await sleep(AFTER * 2.5);
      done.push('ran');
    });
    await queue.add('job', {}, { jobId: 'a' });
    await queue.add('job', {}, { jobId: 'b' });
    await queue.add('job', {}, { jobId: 'c' });
    await waitFor(() => done.length === 3, 15_000);
    expect(verdicts).toEqual([]);
  });

  it('leaves a Worker alone while its queue is paused', async () => {
    const { queue, worker, verdicts } = await setUp('paused', async () => undefined);
    await queue.pause();
    await queue.add('job', {}, { jobId: 'held' });
    await sleep(AFTER * 2.5);
    expect(verdicts).toEqual([]);
    expect(await queue.getJobState('held')).not.toBe('completed');
    await queue.resume();
    await waitFor(async () => (await queue.getJobState('held')) === 'completed');
    expect(worker.isRunning()).toBe(true);
  });
});

async function waitFor(ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
