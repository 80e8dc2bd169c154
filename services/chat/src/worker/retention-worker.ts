// The retention sweep on its own BullMQ queue, `chat-retention` (docs/decisions/036-chat-retention.md).
// A job scheduler puts one sweep job on the queue every RETENTION_EVERY_MS; every chat process
// upserts the same scheduler (one schedule however many replicas) and runs a Worker, so one of
// them takes each job. A failed sweep is counted and logged, not retried: the next scheduled
// one starts over from what is left. The job carries no data and returns only counts.
import { Queue, Worker } from 'bullmq';
import type { Registry } from 'prom-client';
import { queuePrefix, withTimeout, type Logger, type Redis } from '@svc/service-kit';
import {
  retentionMetrics,
  sweepOldMessages,
  type SweepOutcome,
} from '../actions/sweep-old-messages.js';
import { RETENTION_BATCH, RETENTION_EVERY_MS, retentionCutoff } from '../domain/retention.js';
import type { RetentionStore } from '../store/retention-store.js';

export const RETENTION_QUEUE = 'chat-retention';
export const RETENTION_SCHEDULER_ID = 'chat-retention-sweep';

/** Finished sweeps kept in Redis to look at (counts only). */
const KEEP_JOBS = 100;

export interface RetentionWorker {
  worker: Worker;
  queue: Queue;
  /** Settles once the scheduler is upserted, or its upsert failed (logged). */
  scheduled: Promise<void>;
  /** Bounded: with Redis down, closing would otherwise wait for it. */
  close(): Promise<void>;
}

export function startRetentionWorker(deps: {
  store: RetentionStore;
  /** From createRedis(url, logger, { forQueues: true }). */
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  retentionDays: number;
  registry?: Registry;
  /** Tests: smaller batches and a shorter period. */
  batchSize?: number;
  everyMs?: number;
  now?: () => Date;
}): RetentionWorker {
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? RETENTION_BATCH;
  const prefix = queuePrefix(deps.redisPrefix, deps.connection);
  const metrics = retentionMetrics(deps.registry, deps.store, deps.retentionDays, now);

  const queue = new Queue(RETENTION_QUEUE, { connection: deps.connection, prefix });
  queue.on('error', (err) => deps.logger.warn({ err: err.message }, 'retention queue error'));
  // Not awaited: the process starts while Redis is down, and the queue's connection holds the
  // command until Redis is back.
  const scheduled = queue
    .upsertJobScheduler(
      RETENTION_SCHEDULER_ID,
      { every: deps.everyMs ?? RETENTION_EVERY_MS },
      { name: 'sweep', opts: { removeOnComplete: KEEP_JOBS, removeOnFail: KEEP_JOBS } },
    )
    .then(
      () => undefined,
      (err: Error) => deps.logger.warn({ err: err.message }, 'retention schedule not set'),
    );

  const worker = new Worker<unknown, SweepOutcome>(
    RETENTION_QUEUE,
    async (job) => {
      const cutoff = retentionCutoff(now(), deps.retentionDays);
      const outcome = await sweepOldMessages(deps.store, {
        cutoff,
        batchSize,
        onBatch: async (deleted, soFar) => {
          metrics.deleted(deleted);
          await job.updateProgress({ ...soFar });
        },
      });
      if (outcome.deleted > 0)
        deps.logger.info({ ...outcome, cutoff: cutoff.toISOString() }, 'old chat messages deleted');
      return outcome;
    },
    // One sweep at a time per process; another replica may run the next one meanwhile.
    { connection: deps.connection, prefix, concurrency: 1 },
  );
  worker.on('failed', (job, err) => {
    metrics.failed();
    deps.logger.warn({ err: err.message, jobId: job?.id }, 'retention sweep failed');
  });
  worker.on('error', (err) => deps.logger.warn({ err: err.message }, 'retention worker error'));

  return {
    worker,
    queue,
    scheduled,
    async close() {
      await Promise.all([
        withTimeout(worker.close(), 5000, 'retention worker').catch(() => undefined),
        withTimeout(queue.close(), 1000, 'retention queue').catch(() => undefined),
      ]);
    },
  };
}
