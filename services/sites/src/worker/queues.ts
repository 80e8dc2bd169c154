// The BullMQ queues of the sites worker. The API enqueues a scrape job per new site;
// the scrape job enqueues a tag job. Queue keys live under REDIS_PREFIX, so tests and
// tenants that share one Redis never see each other's jobs.
import { Queue, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import { queuePrefix, type Redis } from '@svc/service-kit';
import { injectTraceContext } from '@svc/tracing';

export const SCRAPE_QUEUE = 'scrape';
export const TAG_QUEUE = 'tag';
export const QUEUE_NAMES = [SCRAPE_QUEUE, TAG_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** A scrape job names the site only: the worker reads the URL and type from the database. */
export const ScrapeJobData = z.object({ siteId: z.string() });
export type ScrapeJobData = z.infer<typeof ScrapeJobData>;

/** A tag job likewise: tagging reads the stored metadata. */
export const TagJobData = z.object({ siteId: z.string() });
export type TagJobData = z.infer<typeof TagJobData>;

/**
 * Shared job options: retried with exponential backoff (2 s, 4 s, 8 s, ...); finished jobs
 * are trimmed so Redis does not grow with every site ever submitted.
 */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
};

/**
 * The job id is derived from the site id, so enqueueing the same site twice while its job
 * is still known to BullMQ is a no-op. Prefixed: BullMQ rejects plain-integer custom ids.
 */
export const SCRAPE_JOB_ID_PREFIX = 'scrape-';
export function scrapeJobId(siteId: string): string {
  return `${SCRAPE_JOB_ID_PREFIX}${siteId}`;
}
export function tagJobId(siteId: string): string {
  return `tag-${siteId}`;
}

/**
 * Queue the scrape of a site. Idempotent per site: a job that is waiting, delayed, active
 * or completed is left alone; one that failed for good (e.g. PostgreSQL was down through
 * every attempt) is retried, so a re-queue sweep of still-pending sites revives it.
 */
export async function enqueueScrape(queue: Queue, siteId: string): Promise<void> {
  const data: ScrapeJobData = { siteId };
  await addOrRetry(queue, SCRAPE_QUEUE, data, scrapeJobId(siteId));
}

/** Queue the tagging of a scraped site. Idempotent per site, like enqueueScrape. */
export async function enqueueTag(queue: Queue, siteId: string): Promise<void> {
  const data: TagJobData = { siteId };
  await addOrRetry(queue, TAG_QUEUE, data, tagJobId(siteId));
}

async function addOrRetry(queue: Queue, name: string, data: object, jobId: string): Promise<void> {
  // With the active trace context (tracing on): the worker's job span continues it.
  await queue.add(name, injectTraceContext({ ...data }), { ...JOB_OPTIONS, jobId });
  if ((await queue.getJobState(jobId)) === 'failed')
    await (await queue.getJob(jobId))?.retry('failed');
}

/**
 * Queue handles on a connection made with `createRedis(url, logger, { forQueues: true })`.
 * The connection is shared: `queue.close()` leaves it open, the caller closes it.
 */
export function createQueues(connection: Redis, redisPrefix: string): Record<QueueName, Queue> {
  const prefix = queuePrefix(redisPrefix, connection);
  return {
    [SCRAPE_QUEUE]: new Queue(SCRAPE_QUEUE, { connection, prefix }),
    [TAG_QUEUE]: new Queue(TAG_QUEUE, { connection, prefix }),
  };
}
