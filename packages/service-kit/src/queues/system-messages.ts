// Producer side of chat's system messages: a durable BullMQ queue rather than pub/sub, so a
// message caused by an acknowledged request (a new site, a blocked app) survives chat being
// down. The chat service owns the consumer.
import { Queue } from 'bullmq';
import { Cluster, type Redis } from '../redis/redis.js';
import { SYSTEM_MESSAGE_QUEUE, SystemMessageJob } from '@svc/types';
import { injectTraceContext } from '@svc/tracing';

/**
 * BullMQ's key prefix (its default is `bull`) under the deployment's REDIS_PREFIX. BullMQ's
 * Lua scripts touch several keys of a queue at once, so on a Redis Cluster the prefix is a
 * hash tag (`{<REDIS_PREFIX>bull}`, BullMQ's documented pattern): every queue's keys share
 * one slot. One node keeps the untagged prefix, so an upgrade finds its queued jobs
 * (docs/decisions/021-redis-cluster-and-sentinel.md). Pass the queue connection.
 */
export const queuePrefix = (redisPrefix: string, connection: Redis) =>
  connection instanceof Cluster ? `{${redisPrefix}bull}` : `${redisPrefix}bull`;

export interface SystemMessageProducer {
  /** `jobId` makes the post idempotent while BullMQ keeps the job (see the outbox). */
  post(job: SystemMessageJob, opts?: { jobId?: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `connection` must come from `createRedis(url, logger, { forQueues: true })`; it stays open
 * on close (the caller owns it).
 */
export function createSystemMessageProducer(
  connection: Redis,
  redisPrefix: string,
): SystemMessageProducer {
  const queue = new Queue(SYSTEM_MESSAGE_QUEUE, { connection, prefix: queuePrefix(redisPrefix, connection) });
  return {
    async post(job, opts) {
      // With the active trace context (tracing on): chat's worker continues it.
      await queue.add(job.content_key, injectTraceContext(SystemMessageJob.parse(job)), {
        jobId: opts?.jobId,
        attempts: 10,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: 1000,
        removeOnFail: 5000,
      });
    },
    close: () => queue.close(),
  };
}
