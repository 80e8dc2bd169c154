// sites worker process: configuration, wiring, the scrape and tag Workers, listen (probes
// and metrics) and graceful shutdown. Run as many replicas as load
// needs: BullMQ hands each job to one of them.
import type { Worker } from 'bullmq';
import {
  createEventPublisher,
  createPgAdapter,
  createRuntime,
  exitOnStartupError,
  loadConfig,
} from '@svc/service-kit';
import { workerConfigSchema } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createPageFetcher } from '../scrape/page-fetcher.js';
import { createAiTagger } from '../tagging/ai-tagger.js';
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

  const app = buildWorkerApp({
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    redis: rt.redis,
    queues,
  });
  await rt.serve(app, [
    () => Promise.all(workers.map((w) => closeWorker(w, config.SHUTDOWN_TIMEOUT_MS))),
    () => Promise.all(Object.values(queues).map((q) => q.close())),
    () => db.$disconnect(),
  ]);
}

/**
 * Lets running jobs finish, but not forever: after `ms` the worker is closed by force and
 * its unfinished jobs are picked up again by another worker's stalled-job check.
 */
async function closeWorker(worker: Worker, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    worker.close().then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms))),
  ]);
  clearTimeout(timer);
  if (timedOut) await worker.close(true);
}

main().catch(exitOnStartupError('sites-worker'));
