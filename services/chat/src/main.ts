// chat process: configuration, wiring, listen, graceful shutdown.
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
import { buildApp } from './app.js';
import { configSchema } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

const NAME = 'chat';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const logger = createLogger(NAME, config.LOG_LEVEL);
  const metrics = createMetrics(NAME);
  const target = resolveDatabaseTarget(
    config.CHAT_DATABASE_URL,
    config.DATABASE_URL,
    SERVICES[NAME].schema,
  );
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const redis = createRedis(config.REDIS_URL, logger, { name: NAME });

  const app = buildApp({ logger, metrics, db, redis, trustProxy: config.TRUSTED_PROXIES });
  await startService({
    name: NAME,
    handler: app,
    port: config.PORT,
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    resources: [() => db.$disconnect(), () => redis.quit().catch(() => redis.disconnect())],
  });
}

main().catch(exitOnStartupError(NAME));
