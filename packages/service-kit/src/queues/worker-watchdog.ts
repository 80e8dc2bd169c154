// A BullMQ Worker can stop taking jobs while its process looks healthy: its blocking Redis
// connection parked on a promise that never settles (two such ioredis hangs are patched,
// docs/decisions/023-worker-watchdog.md), or a half-open TCP connection after a
// network fault. Probes still pass and jobs wait for good. The watchdog looks at each
// Worker's queue from outside the Worker: when the same job has been first in line for
// WORKER_STUCK_AFTER_MS while the Worker had a free slot and neither started nor finished a
// job, it calls `onStuck`; services stop gracefully and exit 1, and the orchestrator
// (Kubernetes, docker-compose's `restart: unless-stopped`) starts a fresh process. A busy
// Worker, a paused queue or an unreachable Redis is never a verdict.
import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../ops/logger.js';
import { withTimeout } from '../ops/health.js';
import { queuesOf } from './queue-metrics.js';
import type { Redis } from '../redis/redis.js';

/** What the watchdog knows of one Worker between two looks at its queue. */
export interface WatchState {
  /** The job first in line at the last look, and since when (ms) it has been watched there. */
  first?: { jobId: string; since: number };
  /** The last look (ms) that saw every slot of the Worker taken. */
  busyAt?: number;
}

/** One look at a queue and its Worker. */
export interface Observation {
  /** The job first in the queue's wait list; undefined when none waits. */
  firstWaiting: string | undefined;
  /** The last time (ms) the Worker started or finished a job; 0 when it never did. */
  lastActivity: number;
  /** Jobs the Worker is running, and how many it may run at once. */
  running: number;
  concurrency: number;
}

export interface StuckVerdict {
  jobId: string;
  /** How long the watchdog has seen the job first in line with the Worker idle. */
  idleMs: number;
}

/**
 * The rule, pure: a Worker is stuck when the same job has been first in line for
 * `stuckAfterMs` and the Worker, with a free slot now, has neither started nor finished a
 * job nor been seen with every slot taken in that time. The last: BullMQ frees a slot
 * before it writes the job's end and emits `completed`, and a look in between must not
 * count the job's whole run as idle time. `seen` is undefined when the queue could not be
 * read, is paused, or the Worker is not running: the watch starts over.
 */
export function nextWatch(
  state: WatchState,
  seen: Observation | undefined,
  now: number,
  stuckAfterMs: number,
): { state: WatchState; stuck?: StuckVerdict } {
  if (!seen) return { state: {} };
  const busy = seen.running >= seen.concurrency;
  const busyAt = busy ? now : state.busyAt;
  if (seen.firstWaiting === undefined) return { state: { busyAt } };
  const first =
    state.first?.jobId === seen.firstWaiting ? state.first : { jobId: seen.firstWaiting, since: now };
  const idleMs = now - Math.max(first.since, seen.lastActivity, busyAt ?? 0);
  const stuck = !busy && idleMs >= stuckAfterMs;
  return { state: { first, busyAt }, stuck: stuck ? { jobId: first.jobId, idleMs } : undefined };
}

export interface WorkerWatchdogOptions {
  /**
   * The watchdog's own Redis client (a request-path one: commands time out). Not the
   * Workers' connections, which may be what hangs; a look that fails reconnects it, so a
   * half-open connection of this process does not blind the watchdog as well.
   */
  connection: Redis;
  stuckAfterMs: number;
  logger: Logger;
  /** Called once, for the first Worker found stuck; the watchdog stops. */
  onStuck: (verdict: StuckVerdict & { queue: string }) => void;
  /** Between two looks; default a sixth of `stuckAfterMs`, at most 20 s. */
  checkEveryMs?: number;
}

/** Bound on one look: Redis may be unreachable, and a look must not pile up on the next. */
const LOOK_TIMEOUT_MS = 2000;

/** Watches every Worker until `stop()`; with `stuckAfterMs` 0 it does nothing. */
export function watchWorkers(
  workers: Worker[],
  opts: WorkerWatchdogOptions,
): { stop: () => Promise<void> } {
  if (opts.stuckAfterMs <= 0) return { stop: async () => {} };
  const everyMs = opts.checkEveryMs ?? Math.min(20_000, Math.ceil(opts.stuckAfterMs / 6));
  const queues = queuesOf(workers, opts.connection);
  const watches = workers.map((worker) => {
    const queue = queues[worker.name]!;
    // Its errors are the failed looks below; unheard, BullMQ writes each to the console.
    queue.on('error', () => undefined);
    return { worker, queue, activity: trackActivity(worker), state: {} as WatchState };
  });
  let stopped = false;
  let looking = false;
  const timer = setInterval(() => {
    if (looking || stopped) return;
    looking = true;
    void (async () => {
      for (const watch of watches) {
        const seen = await look(watch.worker, watch.queue, watch.activity).catch(() => {
          if (!stopped) opts.connection.disconnect(true);
          return undefined;
        });
        if (stopped) return;
        const next = nextWatch(watch.state, seen, Date.now(), opts.stuckAfterMs);
        watch.state = next.state;
        if (next.stuck) {
          stopped = true;
          clearInterval(timer);
          const verdict = { ...next.stuck, queue: watch.worker.name };
          opts.logger.fatal(
            { ...verdict, stuckAfterMs: opts.stuckAfterMs },
            'job worker stuck: a job waits first in line while the worker takes none',
          );
          opts.onStuck(verdict);
          return;
        }
      }
    })().finally(() => (looking = false));
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      for (const watch of watches) {
        watch.activity.detach();
        // Leaves the connection open (the caller closes it); bounded, as it is the first
        // step of a shutdown and Redis may be down.
        await withTimeout(watch.queue.close(), 500, 'queue handle').catch(() => undefined);
      }
    },
  };
}

/** When the Worker last started or finished a job, from its events. */
function trackActivity(worker: Worker) {
  let lastActivity = 0;
  const touch = () => (lastActivity = Date.now());
  worker.on('active', touch);
  worker.on('completed', touch);
  worker.on('failed', touch);
  return {
    lastActivity: () => lastActivity,
    detach: () => {
      worker.off('active', touch);
      worker.off('completed', touch);
      worker.off('failed', touch);
    },
  };
}

/**
 * Jobs the Worker runs now, as its lock manager counts them: each from its start to its end,
 * whatever the end. Counting the 'completed' and 'failed' events would miss ends whose move
 * in Redis failed (Redis down, lock lost), and a count that only grows would hide a stuck
 * Worker for good. BullMQ's `lockManager` is protected, not public API: undefined when a
 * release renames it, and then no verdict (the tests of a stuck Worker fail).
 */
function runningJobs(worker: Worker): number | undefined {
  const locks = (worker as unknown as { lockManager?: { getActiveJobCount?: () => number } })
    .lockManager;
  return typeof locks?.getActiveJobCount === 'function' ? locks.getActiveJobCount() : undefined;
}

async function look(
  worker: Worker,
  queue: Queue,
  activity: ReturnType<typeof trackActivity>,
): Promise<Observation | undefined> {
  if (!worker.isRunning() || worker.isPaused()) return undefined;
  const [paused, first] = await withTimeout(
    Promise.all([queue.isPaused(), queue.getRanges(['wait'], 0, 0, true)]),
    LOOK_TIMEOUT_MS,
    'Redis',
  );
  // Read after the queue, so a job started meanwhile counts.
  const running = runningJobs(worker);
  if (paused || running === undefined) return undefined;
  return {
    firstWaiting: first[0],
    lastActivity: activity.lastActivity(),
    running,
    concurrency: worker.concurrency,
  };
}
