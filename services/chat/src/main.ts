// chat process: configuration, wiring, listen, graceful shutdown. The system-message and
// retention workers (BullMQ) run in this same process.
import './instrument.js';
import {
  createPgAdapter,
  createRedis,
  createRuntime,
  exitOnStartupError,
  loadConfig,
  jwtKeyIds,
  loadJwtKeys,
  queuesOf,
  registerQueueGauge,
  withTimeout,
} from '@svc/service-kit';
import { buildApp, buildRoom, type AppDeps } from './app.js';
import { configSchema } from './config.js';
import { geoipLiteLookup } from './clients/geo-lookup.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createRetentionStore } from './store/retention-store.js';
import { startRetentionWorker } from './worker/retention-worker.js';
import { CHAT_READS } from './store/read-routing.js';
import { createChatStore } from './store/store.js';
import { startSystemMessageWorker } from './worker/system-message-worker.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const keys = loadJwtKeys({
    publicKey: config.JWT_PUBLIC_KEY,
    otherPublicKeys: config.JWT_PUBLIC_KEYS,
    production: config.NODE_ENV === 'production',
    needPrivate: false,
  });
  const rt = createRuntime('chat', config);
  rt.logger.info(jwtKeyIds(keys), 'session keys');
  const target = rt.databaseTarget(config.CHAT_DATABASE_URL);
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  // GET /api/messages on the read replicas, if any (store/read-routing.ts).
  const reads = rt.readRouter({
    routing: CHAT_READS,
    primaryTarget: target,
    primary: createChatStore(db),
    ownUrl: config.CHAT_DATABASE_URL,
    ownReplicaUrls: config.CHAT_DATABASE_REPLICA_URLS,
    replica: (replicaTarget) => {
      const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget) });
      return { client: createChatStore(replicaDb), close: () => replicaDb.$disconnect() };
    },
  });
  const deps: AppDeps = {
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    reads,
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    publicKey: keys.verifyKeys,
    ipHashSecret: config.IP_HASH_SECRET,
    internalToken: config.INTERNAL_TOKEN,
    trustProxy: config.TRUSTED_PROXIES,
  };
  const room = buildRoom(deps);
  // Load the IP database now (~130 ms, synchronous) rather than in the first request.
  geoipLiteLookup('127.0.0.1');
  const queueRedis = createRedis(config.REDIS_URL, rt.logger, {
    name: 'chat-queue',
    forQueues: true,
  });
  const worker = startSystemMessageWorker({
    room,
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    logger: rt.logger,
    concurrency: config.SYSTEM_MESSAGE_CONCURRENCY,
  });
  // Messages older than CHAT_RETENTION_DAYS go, with their likes, every 10 minutes.
  const retention = startRetentionWorker({
    store: createRetentionStore(db),
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    logger: rt.logger,
    retentionDays: config.CHAT_RETENTION_DAYS,
    registry: rt.metrics.registry,
  });
  const workers = [worker, retention.worker];
  rt.watchWorkers(workers, config.WORKER_STUCK_AFTER_MS);
  // The queues' depth in /metrics, for the queue alerts.
  registerQueueGauge(rt.metrics, queuesOf(workers), rt.logger);
  // Bounded, and side by side: with Redis down, closing a worker (and QUIT on a client with the
  // offline queue on) would wait for Redis forever. An unfinished system-message job simply
  // runs again later; a sweep cut short is continued by the next one.
  await rt.serve(buildApp(deps, room), [
    {
      name: 'job workers',
      close: async () => {
        await Promise.all([
          withTimeout(worker.close(), 5000, 'system message worker').catch(() => undefined),
          retention.close(),
        ]);
      },
    },
    { name: 'queue redis', close: () => queueRedis.disconnect() },
    { name: 'read replicas', close: () => reads.close() },
    { name: 'prisma', close: () => db.$disconnect() },
  ]);
}

main().catch(exitOnStartupError('chat'));
