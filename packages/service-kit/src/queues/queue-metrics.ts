// The depth of the BullMQ queues a process works on, for Prometheus: `queue_jobs{queue,state}`
// read from Redis when /metrics is scraped. Every process that runs Workers registers its
// queues (the sites worker: scrape, tag; chat: chat-system, chat-retention; auth: notify-email), so one
// alert covers every queue's backlog and failures (k8s/base/monitoring.yaml).
import { Queue, type Worker } from 'bullmq';
import { Gauge } from 'prom-client';
import { withTimeout } from '../ops/health.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import type { Redis } from '../redis/redis.js';

const QUEUE_JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

/** Registers `queue_jobs` for `queues` (name → handle); each read is bounded: Redis may be down. */
export function registerQueueGauge(
  metrics: Metrics,
  queues: Record<string, Queue>,
  logger: Logger,
): void {
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs in the BullMQ queues this process works on, by state',
    labelNames: ['queue', 'state'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const [name, queue] of Object.entries(queues)) {
        try {
          const counts = await withTimeout(queue.getJobCounts(...QUEUE_JOB_STATES), 1000, 'Redis');
          for (const state of QUEUE_JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        } catch (err) {
          logger.warn({ err: (err as Error).message, queue: name }, 'queue counts unavailable');
        }
      }
    },
  });
}

/**
 * Handles on the queues of `workers`, by name, with each Worker's prefix: on `connection`,
 * else on each Worker's own (the shared, non-blocking one it was given). Nothing to close:
 * the connection is the caller's.
 */
export function queuesOf(workers: Worker[], connection?: Redis): Record<string, Queue> {
  return Object.fromEntries(
    workers.map((w) => [
      w.name,
      new Queue(w.name, { connection: connection ?? w.opts.connection, prefix: w.opts.prefix }),
    ]),
  );
}
