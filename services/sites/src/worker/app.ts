// The sites worker's HTTP side: /healthz, /readyz and /metrics only (probes and
// Prometheus, with the queue depths: the kit's `queue_jobs`). The jobs themselves run in
// BullMQ Workers (processors.ts), started next to this app by main.ts.
import type { Express } from 'express';
import type { Queue } from 'bullmq';
import {
  createServiceApp,
  postgresCheck,
  redisCheck,
  registerQueueGauge,
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

export function buildWorkerApp(deps: WorkerAppDeps): Express {
  if (deps.metrics) registerQueueGauge(deps.metrics, deps.queues, deps.logger);
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: { postgres: postgresCheck(deps.db), redis: redisCheck(deps.redis) },
    routes: () => {},
  });
}
