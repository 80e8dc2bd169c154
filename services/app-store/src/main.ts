// app-store process: configuration, wiring, listen, graceful shutdown.
import './instrument.js';
import {
  createPgPool,
  closeRedis,
  createPgAdapter,
  createRedis,
  createRuntime,
  startJobOutbox,
  startSystemMessageRelay,
  queuePrefix,
  exitOnStartupError,
  loadConfig,
  jwtKeyIds,
  loadJwtKeys,
} from '@svc/service-kit';
import { Queue } from 'bullmq';
import { NOTIFY_EMAIL_QUEUE } from '@svc/types';
import { buildApp } from './app.js';
import { startWithdrawnAppPurge } from './actions/purge-withdrawn-apps.js';
import { NOTICE_JOB_OPTIONS } from './domain/author-notice.js';
import { configSchema, ipHashSecret } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createWithdrawalStore } from './store/withdrawal-store.js';
import { createAuthorStore } from './store/author-store.js';
import { createListingReader } from './store/listing-reader.js';
import { APP_STORE_READS, type AppStoreReadClient } from './store/read-routing.js';
import { createAppStore } from './store/store.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const keys = loadJwtKeys({
    publicKey: config.JWT_PUBLIC_KEY,
    otherPublicKeys: config.JWT_PUBLIC_KEYS,
    production: config.NODE_ENV === 'production',
    needPrivate: false,
  });
  const secret = ipHashSecret(config);
  const rt = createRuntime('app-store', config);
  rt.logger.info(jwtKeyIds(keys), 'session keys');
  const target = rt.databaseTarget(config.APP_STORE_DATABASE_URL);
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const listingPool = createPgPool(target);
  // The public reads on the read replicas, if any (store/read-routing.ts).
  const readClient = (client: PrismaClient, pool: typeof listingPool): AppStoreReadClient => ({
    store: createAppStore(client, { reportDistinctNetworks: config.REPORT_DISTINCT_NETWORKS }),
    authors: createAuthorStore(client),
    listingReader: createListingReader(pool),
  });
  const reads = rt.readRouter({
    routing: APP_STORE_READS,
    primaryTarget: target,
    primary: readClient(db, listingPool),
    ownUrl: config.APP_STORE_DATABASE_URL,
    ownReplicaUrls: config.APP_STORE_DATABASE_REPLICA_URLS,
    replica: (replicaTarget) => {
      const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget) });
      const replicaPool = createPgPool(replicaTarget);
      return {
        client: readClient(replicaDb, replicaPool),
        close: async () => {
          await replicaDb.$disconnect();
          await replicaPool.end();
        },
      };
    },
  });
  // BullMQ needs a client that retries forever; the request-path client fails fast.
  const queueRedis = createRedis(config.REDIS_URL, rt.logger, {
    name: 'app-store-queues',
    forQueues: true,
  });
  const systemMessages = startSystemMessageRelay({
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    pool: listingPool,
    logger: rt.logger,
    service: 'app-store',
    registry: rt.metrics.registry,
  });
  // The author's e-mails about blocks and restores (job_outbox) to auth's notify-email queue.
  const noticeQueue = new Queue(NOTIFY_EMAIL_QUEUE, {
    connection: queueRedis,
    prefix: queuePrefix(config.REDIS_PREFIX, queueRedis),
  });
  const jobs = startJobOutbox({
    pool: listingPool,
    logger: rt.logger,
    service: 'app-store',
    registry: rt.metrics.registry,
    queues: { [NOTIFY_EMAIL_QUEUE]: { queue: noticeQueue, options: NOTICE_JOB_OPTIONS } },
  });
  // Withdrawn apps whose retention days are over, deleted for good: at once (a process that
  // was down catches up), then every minute.
  const purge = startWithdrawnAppPurge({
    withdrawals: createWithdrawalStore(db),
    logger: rt.logger,
    registry: rt.metrics.registry,
  });
  void purge.sweep();
  const app = buildApp({
    logger: rt.logger,
    metrics: rt.metrics,
    db,
    listingPool,
    reads,
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    publicKey: keys.verifyKeys,
    systemMessages,
    jobs,
    trustProxy: config.TRUSTED_PROXIES,
    listingCacheMs: config.APP_STORE_LISTING_CACHE_MS,
    totalsCacheMs: config.APP_STORE_TOTALS_CACHE_MS,
    ipHashSecret: secret,
    reportDistinctNetworks: config.REPORT_DISTINCT_NETWORKS,
    internalToken: config.INTERNAL_TOKEN,
  });
  await rt.serve(app, [
    { name: 'system message relay', close: () => systemMessages.stop() },
    { name: 'job outbox relay', close: () => jobs.stop() },
    { name: 'purge sweep', close: () => purge.stop() },
    { name: 'notice queue', close: () => noticeQueue.close() },
    { name: 'read replicas', close: () => reads.close() },
    { name: 'prisma', close: () => db.$disconnect() },
    { name: 'listing pool', close: () => listingPool.end() },
    { name: 'queue redis', close: () => closeRedis(queueRedis) },
  ]);
}

main().catch(exitOnStartupError('app-store'));
