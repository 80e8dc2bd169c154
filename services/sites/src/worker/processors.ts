// The BullMQ Workers of the sites worker process: `scrape` (fetch + metadata) and `tag`.
// Several processes may run them side by side (jobs are claimed atomically in Redis).
// A job whose process dies keeps its lock only until `lockDuration` runs out; another
// worker's stalled-job check (every `stalledInterval`) then puts it back in the queue.
import { Worker, type Job, type Queue } from 'bullmq';
import { queuePrefix, type EventPublisher, type Logger, type Redis } from '@svc/service-kit';
import { withExtractedContext } from '@svc/tracing';
import type { SafeFetcher } from '@svc/safe-fetch';
import type { PrismaClient } from '../generated/prisma/client.js';
import { scrapeSite } from './scrape-site.js';
import type { AiTagger } from '../clients/ai-tagger.js';
import { tagSite } from './tag-site.js';
import { SCRAPE_QUEUE, ScrapeJobData, TAG_QUEUE, TagJobData, enqueueTag } from './queues.js';

export interface ProcessorDeps {
  db: PrismaClient;
  /** Queue connection (`forQueues: true`); BullMQ duplicates it for blocking reads. */
  redis: Redis;
  redisPrefix: string;
  events: EventPublisher;
  logger: Logger;
  fetcher: SafeFetcher;
  ai?: AiTagger;
  tagQueue: Queue;
  scrapeConcurrency: number;
  tagConcurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/** A job that stalls this often (its worker died each time) is failed, not retried forever. */
const MAX_STALLED_COUNT = 2;

export function startProcessors(deps: ProcessorDeps): Worker[] {
  const common = {
    connection: deps.redis,
    prefix: queuePrefix(deps.redisPrefix, deps.redis),
    lockDuration: deps.lockDurationMs,
    stalledInterval: deps.stalledIntervalMs,
    maxStalledCount: MAX_STALLED_COUNT,
  };
  const log = deps.logger;

  const scrapeWorker = new Worker(
    SCRAPE_QUEUE,
    traced('scrape job', async (job: Job) => {
      const { siteId } = ScrapeJobData.parse(job.data);
      return scrapeSite(
        {
          db: deps.db,
          fetcher: deps.fetcher,
          events: deps.events,
          logger: log,
          enqueueTag: (id) => enqueueTag(deps.tagQueue, id),
        },
        siteId,
        { finalAttempt: isFinalAttempt(job) },
      );
    }),
    { ...common, concurrency: deps.scrapeConcurrency },
  );

  const tagWorker = new Worker(
    TAG_QUEUE,
    traced('tag job', async (job: Job) => {
      const { siteId } = TagJobData.parse(job.data);
      const result = await tagSite(
        { db: deps.db, events: deps.events, logger: log, ai: deps.ai },
        siteId,
      );
      return result ?? 'missing';
    }),
    { ...common, concurrency: deps.tagConcurrency },
  );

  for (const worker of [scrapeWorker, tagWorker]) {
    worker.on('failed', (job, err) =>
      log.warn(
        { queue: worker.name, jobId: job?.id, attempt: job?.attemptsMade, err: err.message },
        'job failed',
      ),
    );
    worker.on('stalled', (jobId) =>
      log.warn({ queue: worker.name, jobId }, 'stalled job taken up again'),
    );
    // Redis outages surface here; BullMQ reconnects by itself.
    worker.on('error', (err) =>
      log.error({ queue: worker.name, err: err.message }, 'worker error'),
    );
  }
  return [scrapeWorker, tagWorker];
}

/** A processor whose every job runs in a span continuing the trace of whoever queued it. */
function traced<T>(name: string, process: (job: Job) => Promise<T>): (job: Job) => Promise<T> {
  return (job) =>
    withExtractedContext(job.data, name, () => process(job), {
      'messaging.system': 'bullmq',
      'messaging.destination.name': job.queueName,
      'messaging.message.id': job.id ?? '',
    });
}

/** On its last attempt a scrape records the failure instead of throwing for a retry. */
export function isFinalAttempt(job: Pick<Job, 'attemptsMade' | 'opts'>): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
