// What every service process wires the same way: logger, metrics, Redis, where its
// tables live, and serving with graceful shutdown. A service's main.ts adds only its
// own clients (Prisma, queues) and its app.
import type { RequestListener } from 'node:http';
import type { Worker } from 'bullmq';
import type { BaseConfig, ReadReplicaConfig } from '../ops/config.js';
import {
  replicaName,
  resolveDatabaseTarget,
  resolveReplicaTargets,
  type DatabaseTarget,
} from '../data/database-url.js';
import { createReadRouter, type ReadRouter, type ReadRouting } from '../data/read-router.js';
import { startService, type Resource, type RunningService, type StartOptions } from './lifecycle.js';
import { createLogger, type Logger } from '../ops/logger.js';
import { createMetrics, type Metrics } from '../ops/metrics.js';
import { createOpsHandler, defaultOpsPort, opsHandlerOf } from '../ops/ops.js';
import { scaleRateLimits } from '../http/rate-limit.js';
import { createRedis, type Redis } from '../redis/redis.js';
import { SERVICES, type ServiceName } from '../ops/service-catalog.js';
import { watchWorkers } from '../queues/worker-watchdog.js';

export interface ServiceRuntime {
  logger: Logger;
  metrics: Metrics;
  redis: Redis;
  /** The service's own database URL setting if given, else DATABASE_URL + its schema. */
  databaseTarget(ownUrl: string | undefined): DatabaseTarget;
  /**
   * Listens on PORT, and on OPS_PORT (default PORT + 1000) for /metrics and the detailed
   * /readyz of the app (createServiceApp); on SIGTERM/SIGINT drains, closes `resources`, then Redis, all within
   * SHUTDOWN_TIMEOUT_MS (see `startService`).
   */
  serve(
    handler: RequestListener,
    resources?: StartOptions['resources'],
    onServer?: StartOptions['onServer'],
  ): Promise<RunningService>;
  /**
   * Watches the process's BullMQ Workers (worker-watchdog.ts) on a Redis client of its own:
   * one found stuck stops the process gracefully, which then exits 1 for its orchestrator
   * to start a fresh one. Call before `serve`; `stuckAfterMs` 0 watches nothing.
   */
  watchWorkers(workers: Worker[], stuckAfterMs: number): void;
  /**
   * The read router of the service (read-router.ts): its replicas are its own
   * `<SERVICE>_DATABASE_REPLICA_URLS`, or DATABASE_REPLICA_URLS when its tables are in the
   * shared database (resolveReplicaTargets), each on the primary's schema; `replica` builds
   * what the service reads with on one of them. Close it with the service's resources.
   */
  readRouter<C, N extends string>(opts: {
    routing: Record<N, ReadRouting>;
    primaryTarget: DatabaseTarget;
    primary: C;
    ownUrl: string | undefined;
    ownReplicaUrls: string | undefined;
    replica: (target: DatabaseTarget) => { client: C; close: () => Promise<void> };
  }): ReadRouter<C, N>;
}

/**
 * Closes a client politely when it is connected, else at once: QUIT on a client that is
 * reconnecting would wait in its offline queue (queue clients have one) until Redis is back.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') return redis.disconnect();
  await redis.quit().catch(() => redis.disconnect());
}

export function createRuntime(
  name: ServiceName,
  config: BaseConfig & { PORT: number } & Partial<ReadReplicaConfig>,
  options: { redisForQueues?: boolean } = {},
): ServiceRuntime {
  const logger = createLogger(name, config.LOG_LEVEL);
  if (config.RATE_LIMIT_SCALE !== 1) {
    scaleRateLimits(config.RATE_LIMIT_SCALE);
    logger.warn({ scale: config.RATE_LIMIT_SCALE }, 'rate limits scaled (RATE_LIMIT_SCALE, a test setting)');
  }
  const metrics = createMetrics(name);
  const redis = createRedis(config.REDIS_URL, logger, { name, forQueues: options.redisForQueues });
  /** Closed before the service's own resources (the watchdog must not judge a stopping process). */
  const watchdogs: Resource[] = [];
  let running: RunningService | undefined;
  return {
    logger,
    metrics,
    redis,
    databaseTarget(ownUrl) {
      const schema = SERVICES[name].schema;
      if (!schema) throw new Error(`${name} has no PostgreSQL schema`);
      return {
        ...resolveDatabaseTarget(ownUrl, config.DATABASE_URL, schema),
        queryTimeoutMs: config.PG_QUERY_TIMEOUT_MS,
      };
    },
    readRouter(opts) {
      const targets = resolveReplicaTargets(
        { own: opts.ownReplicaUrls, shared: config.DATABASE_REPLICA_URLS, ownPrimary: opts.ownUrl },
        opts.primaryTarget,
      );
      if (targets.length > 0)
        logger.info(
          { replicas: targets.map(replicaName), maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS },
          'read replicas',
        );
      return createReadRouter({
        service: name,
        routing: opts.routing,
        primary: opts.primary,
        primaryTarget: opts.primaryTarget,
        replicas: targets.map((target) => ({ name: replicaName(target), target, ...opts.replica(target) })),
        maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS,
        redis,
        redisPrefix: config.REDIS_PREFIX,
        registry: metrics.registry,
        logger,
      });
    },
    watchWorkers(workers, stuckAfterMs) {
      if (stuckAfterMs <= 0 || workers.length === 0) return;
      const connection = createRedis(config.REDIS_URL, logger, { name: `${name}-watchdog` });
      const watchdog = watchWorkers(workers, {
        connection,
        stuckAfterMs,
        logger,
        // A verdict comes stuckAfterMs after the start at the earliest: serve() has resolved.
        onStuck: () => void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(1)),
      });
      watchdogs.push({
        name: 'worker watchdog',
        close: async () => {
          await watchdog.stop();
          connection.disconnect();
        },
      });
    },
    serve: async (handler, resources = [], onServer) =>
      (running = await startService({
        name,
        handler,
        port: config.PORT,
        ops: {
          port: defaultOpsPort(config.PORT, config.OPS_PORT),
          handler: opsHandlerOf(handler) ?? createOpsHandler({ metrics }),
        },
        logger,
        shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
        resources: [...watchdogs, ...resources, { name: 'redis', close: () => closeRedis(redis) }],
        onServer,
      })),
  };
}
