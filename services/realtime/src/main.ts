// realtime process: configuration, wiring, listen, graceful shutdown. No database.
import { createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { buildApp } from './app.js';
import { configSchema } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const rt = createRuntime('realtime', config);
  const app = buildApp({
    logger: rt.logger,
    metrics: rt.metrics,
    redis: rt.redis,
    trustProxy: config.TRUSTED_PROXIES,
  });
  await rt.serve(app);
}

main().catch(exitOnStartupError('realtime'));
