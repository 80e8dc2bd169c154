// translate process: configuration, wiring, listen, graceful shutdown. No database:
// Redis holds the translation cache.
import {
  createLogger,
  createMetrics,
  createRedis,
  exitOnStartupError,
  loadConfig,
  startService,
} from '@svc/service-kit';
import { buildApp } from './app.js';
import { configSchema } from './config.js';

const NAME = 'translate';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const logger = createLogger(NAME, config.LOG_LEVEL);
  const metrics = createMetrics(NAME);
  const redis = createRedis(config.REDIS_URL, logger, { name: NAME });

  const app = buildApp({ logger, metrics, redis, trustProxy: config.TRUSTED_PROXIES });
  await startService({
    name: NAME,
    handler: app,
    port: config.PORT,
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    resources: [() => redis.quit().catch(() => redis.disconnect())],
  });
}

main().catch(exitOnStartupError(NAME));
