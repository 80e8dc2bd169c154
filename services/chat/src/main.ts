// chat process: configuration, wiring, listen, graceful shutdown.
import { createPgAdapter, createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { buildApp } from './app.js';
import { configSchema } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const rt = createRuntime('chat', config);
  const db = new PrismaClient({
    adapter: createPgAdapter(rt.databaseTarget(config.CHAT_DATABASE_URL)),
  });
  const app = buildApp({
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    redis: rt.redis,
    trustProxy: config.TRUSTED_PROXIES,
  });
  await rt.serve(app, [() => db.$disconnect()]);
}

main().catch(exitOnStartupError('chat'));
