// The sites worker's HTTP side: /healthz, /readyz and /metrics only (probes and
// Prometheus, with the queue depths). The jobs themselves run in BullMQ Workers
// (processors.ts), started next to this app by main.ts.
import type { Express } from 'express';
import type { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import {
  createServiceApp,
  postgresCheck,
  redisCheck,
  withTimeout,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/service-kit';
import type { PrismaClient } from '../generated/prisma/client.js';

export interface WorkerAppDeps {
  logger: Logger;
  metrics?: Metrics;
  db: PrismaClient;
  /** The queue connection (`forQueues: true`). */
  redis: Redis;
  queues: Record<string, Queue>;
}

const JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

export function buildWorkerApp(deps: WorkerAppDeps): Express {
  if (deps.metrics) registerQueueGauge(deps.metrics, deps.queues, deps.logger);
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: { postgres: postgresCheck(deps.db), redis: redisCheck(deps.redis) },
    routes: () => {},
  });
}

/** `sites_queue_jobs{queue,state}`, read from Redis at scrape time (bounded: Redis may be down). */
function registerQueueGauge(metrics: Metrics, queues: Record<string, Queue>, logger: Logger): void {
  new Gauge({
    name: 'sites_queue_jobs',
    help: 'Jobs in the sites worker queues by state',
    labelNames: ['queue', 'state'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const [name, queue] of Object.entries(queues)) {
        try {
          const counts = await withTimeout(queue.getJobCounts(...JOB_STATES), 1000, 'Redis');
          for (const state of JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        } catch (err) {
          logger.warn({ err: (err as Error).message, queue: name }, 'queue counts unavailable');
        }
      }
    },
  });
}
