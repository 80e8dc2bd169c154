// The BullMQ queues of the sites worker. The API enqueues a scrape job per new site;
// the scrape job enqueues a tag job. Queue keys live under REDIS_PREFIX, so tests and
// tenants that share one Redis never see each other's jobs.
import { Queue } from 'bullmq';
import type { Redis } from '@svc/service-kit';

export const SCRAPE_QUEUE = 'scrape';
export const TAG_QUEUE = 'tag';
export const QUEUE_NAMES = [SCRAPE_QUEUE, TAG_QUEUE] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** BullMQ's key prefix (its default is `bull`) under the deployment's REDIS_PREFIX. */
export const queuePrefix = (redisPrefix: string) => `${redisPrefix}bull`;

/**
 * Queue handles on a connection made with `createRedis(url, logger, { forQueues: true })`.
 * The connection is shared: `queue.close()` leaves it open, the caller closes it.
 */
export function createQueues(connection: Redis, redisPrefix: string): Record<QueueName, Queue> {
  const prefix = queuePrefix(redisPrefix);
  return {
    [SCRAPE_QUEUE]: new Queue(SCRAPE_QUEUE, { connection, prefix }),
    [TAG_QUEUE]: new Queue(TAG_QUEUE, { connection, prefix }),
  };
}
