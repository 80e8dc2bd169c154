// sites worker process: configuration, wiring, listen (probes and metrics), graceful
// shutdown. The scrape and tag processors come with issue #4.
import { createPgAdapter, createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { workerConfigSchema } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { buildWorkerApp } from './app.js';
import { createQueues } from './queues.js';

async function main(): Promise<void> {
  const config = loadConfig(workerConfigSchema);
  // BullMQ needs a connection that retries forever (maxRetriesPerRequest: null).
  const rt = createRuntime('sites-worker', config, { redisForQueues: true });
  const db = new PrismaClient({
    adapter: createPgAdapter(rt.databaseTarget(config.SITES_DATABASE_URL), { max: 4 }),
  });
  const queues = createQueues(rt.redis, config.REDIS_PREFIX);
  const app = buildWorkerApp({
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    redis: rt.redis,
    queues,
  });
  await rt.serve(app, [
    () => Promise.all(Object.values(queues).map((q) => q.close())),
    () => db.$disconnect(),
  ]);
}

main().catch(exitOnStartupError('sites-worker'));
