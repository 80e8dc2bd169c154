// sites worker process: configuration, wiring, listen (probes and metrics), graceful
// shutdown. The scrape and tag processors come with issue #4.
import {
  SERVICES,
  createLogger,
  createMetrics,
  createPgAdapter,
  createRedis,
  exitOnStartupError,
  loadConfig,
  resolveDatabaseTarget,
  startService,
} from '@svc/service-kit';
import { workerConfigSchema } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { buildWorkerApp } from './app.js';
import { createQueues } from './queues.js';

const NAME = 'sites-worker';

async function main(): Promise<void> {
  const config = loadConfig(workerConfigSchema);
  const logger = createLogger(NAME, config.LOG_LEVEL);
  const metrics = createMetrics(NAME);
  const target = resolveDatabaseTarget(config.SITES_DATABASE_URL, config.DATABASE_URL, SERVICES[NAME].schema);
  const db = new PrismaClient({ adapter: createPgAdapter(target, { max: 4 }) });
  // BullMQ needs a connection that retries forever (maxRetriesPerRequest: null).
  const redis = createRedis(config.REDIS_URL, logger, { name: NAME, forQueues: true });
  const queues = createQueues(redis, config.REDIS_PREFIX);

  const app = buildWorkerApp({ logger, metrics, db, redis, queues });
  await startService({
    name: NAME,
    handler: app,
    port: config.PORT,
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    resources: [
      () => Promise.all(Object.values(queues).map((q) => q.close())),
      () => db.$disconnect(),
      () => redis.quit().catch(() => redis.disconnect()),
    ],
  });
}

main().catch(exitOnStartupError(NAME));
