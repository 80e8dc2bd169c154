// sites worker process: configuration, wiring, the scrape and tag Workers, listen (probes
// and metrics) and graceful shutdown, bounded whatever Redis and PostgreSQL are doing. Run
// as many replicas as load needs: BullMQ hands each job to one of them.
import './instrument.js';
import type { Worker } from 'bullmq';
import {
  createEventPublisher,
  createPgAdapter,
  createRuntime,
  exitOnStartupError,
  loadConfig,
  type Logger,
} from '@svc/service-kit';
import { workerConfigSchema } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createPageFetcher } from '../clients/page-fetcher.js';
import { createAiTagger } from '../clients/ai-tagger.js';
import { buildWorkerApp } from './app.js';
import { startProcessors } from './processors.js';
import { TAG_QUEUE, createQueues } from './queues.js';

async function main(): Promise<void> {
  const config = loadConfig(workerConfigSchema);
  // BullMQ needs a connection that retries forever (maxRetriesPerRequest: null).
  const rt = createRuntime('sites-worker', config, { redisForQueues: true });
  const db = new PrismaClient({
    adapter: createPgAdapter(rt.databaseTarget(config.SITES_DATABASE_URL), {
      max: Math.min(20, 2 + config.SCRAPE_CONCURRENCY + config.TAG_CONCURRENCY),
    }),
  });
  const queues = createQueues(rt.redis, config.REDIS_PREFIX);
  const ai = config.ANTHROPIC_API_KEY
    ? createAiTagger({
        apiKey: config.ANTHROPIC_API_KEY,
        baseURL: config.ANTHROPIC_BASE_URL,
        model: config.ANTHROPIC_MODEL,
      })
    : undefined;
  if (!ai) rt.logger.info('ANTHROPIC_API_KEY unset: sites are tagged by the keyword classifier');

  const workers = startProcessors({
    db,
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    events: createEventPublisher(rt.redis, config.REDIS_PREFIX),
    logger: rt.logger,
    fetcher: createPageFetcher(config),
    ai,
    tagQueue: queues[TAG_QUEUE],
    scrapeConcurrency: config.SCRAPE_CONCURRENCY,
    tagConcurrency: config.TAG_CONCURRENCY,
    lockDurationMs: config.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS,
  });

  rt.watchWorkers(workers, config.WORKER_STUCK_AFTER_MS);

  const app = buildWorkerApp({
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    redis: rt.redis,
    queues,
  });
  // Running jobs get the shutdown timeout but a reserve (2 s, or half of a shorter timeout)
  // left for closing the queues, Prisma and Redis; the kit bounds the whole stop.
  const jobsMs = config.SHUTDOWN_TIMEOUT_MS - Math.min(2000, config.SHUTDOWN_TIMEOUT_MS / 2);
  await rt.serve(app, [
    { name: 'job workers', close: () => closeWorkers(workers, jobsMs, rt.logger) },
    { name: 'queues', close: () => Promise.all(Object.values(queues).map((q) => q.close())) },
    { name: 'prisma', close: () => db.$disconnect() },
  ]);
}

/**
 * Stops taking jobs and lets running ones finish, for up to `ms`; after that they are left
 * to the stalled-job check of another worker (their locks run out) and the process goes on
 * closing. Not `worker.close(true)` as a fallback: once `close()` is under way BullMQ hands
 * back that same promise, and `close()` never settles when its blocking Redis client is
 * between two reconnect attempts (ioredis's disconnect() then cancels the retry and never
 * emits 'end'; taskforcesh/bullmq#4656), which is where a SIGTERM lands while Redis
 * restarts or is down.
 */
async function closeWorkers(workers: Worker[], ms: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    Promise.all(workers.map((w) => w.close())).then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  if (!inTime)
    logger.warn(
      { afterMs: ms },
      'job workers not closed in time: running jobs are left to the stalled-job check',
    );
}

main().catch(exitOnStartupError('sites-worker'));
