// sites process: configuration, wiring, listen, graceful shutdown.
import './instrument.js';
import {
  createIpHasher,
  createPgPool,
  createPgAdapter,
  createRedis,
  createRuntime,
  startJobOutbox,
  startSystemMessageRelay,
  closeRedis,
  exitOnStartupError,
  loadConfig,
  jwtKeyIds,
  loadJwtKeys,
} from '@svc/service-kit';
import { createSafeFetcher } from '@svc/safe-fetch';
import { buildApp } from './app.js';
import { createCaptchaVerifier } from './clients/captcha.js';
import { configSchema, ipHashSecret } from './config.js';
import { createDailyBgSource } from './clients/daily-bg-source.js';
import { PrismaClient } from './generated/prisma/client.js';
import { startScrapeRequeue } from './actions/scrape-requeue.js';
import { firstKeptBoostDay } from './domain/boost-allowance.js';
import { createSiteStore } from './store/site-store.js';
import { createSiteListReader } from './store/site-list-reader.js';
import { createSitemapReader } from './store/sitemap-reader.js';
import { SITES_READS } from './store/read-routing.js';
import { createSubmissionStore } from './store/submission-store.js';
import { createQueues, JOB_OPTIONS, SCRAPE_QUEUE, TAG_QUEUE } from './worker/queues.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const production = config.NODE_ENV === 'production';
  const keys = loadJwtKeys({
    publicKey: config.JWT_PUBLIC_KEY,
    otherPublicKeys: config.JWT_PUBLIC_KEYS,
    production,
    needPrivate: false,
  });
  const hashIp = createIpHasher(ipHashSecret(config));
  const rt = createRuntime('sites', config);
  rt.logger.info(jwtKeyIds(keys), 'session keys');
  const target = rt.databaseTarget(config.SITES_DATABASE_URL);
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const listingPool = createPgPool(target);
  // The public reads on the read replicas, if any (store/read-routing.ts).
  const reads = rt.readRouter({
    routing: SITES_READS,
    primaryTarget: target,
    primary: {
      store: createSiteStore(db),
      listReader: createSiteListReader(listingPool),
      sitemapReader: createSitemapReader(listingPool),
    },
    ownUrl: config.SITES_DATABASE_URL,
    ownReplicaUrls: config.SITES_DATABASE_REPLICA_URLS,
    replica: (replicaTarget) => {
      const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget) });
      const replicaPool = createPgPool(replicaTarget);
      return {
        client: {
          store: createSiteStore(replicaDb),
          listReader: createSiteListReader(replicaPool),
          sitemapReader: createSitemapReader(replicaPool),
        },
        close: async () => {
          await replicaDb.$disconnect();
          await replicaPool.end();
        },
      };
    },
  });
  // BullMQ needs its own connection that retries forever; request paths bound their waits.
  const queueRedis = createRedis(config.REDIS_URL, rt.logger, {
    name: 'sites-queues',
    forQueues: true,
  });
  const queues = createQueues(queueRedis, config.REDIS_PREFIX);
  const systemMessages = startSystemMessageRelay({
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    pool: listingPool,
    logger: rt.logger,
    service: 'sites',
    registry: rt.metrics.registry,
  });
  // Scrape jobs requested by committed submissions (job_outbox) to the scrape queue.
  const jobOutbox = startJobOutbox({
    pool: listingPool,
    logger: rt.logger,
    service: 'sites',
    registry: rt.metrics.registry,
    queues: { [SCRAPE_QUEUE]: { queue: queues[SCRAPE_QUEUE], options: JOB_OPTIONS } },
  });
  const siteStore = createSiteStore(db);
  const requeue = startScrapeRequeue({
    store: siteStore,
    queue: queues[SCRAPE_QUEUE],
    tagQueue: queues[TAG_QUEUE],
    logger: rt.logger,
    expire: {
      'idempotency keys': () => createSubmissionStore(listingPool).deleteExpiredIdempotencyKeys(),
      boosts: () => siteStore.deleteOldBoosts(firstKeptBoostDay(new Date()), 5000),
    },
  });

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
    jobOutbox,
    captcha: config.CAPTCHA_SECRET_KEY
      ? createCaptchaVerifier({
          secret: config.CAPTCHA_SECRET_KEY,
          verifyUrl: config.CAPTCHA_VERIFY_URL,
        })
      : undefined,
    pageFetcher: createSafeFetcher({
      allowHosts: config.OUTBOUND_ALLOW_HOSTS,
      totalTimeoutMs: 10_000,
    }),
    dailyBg: createDailyBgSource({
      redis: rt.redis,
      redisPrefix: config.REDIS_PREFIX,
      sourceUrl: config.DAILY_BG_SOURCE_URL,
      logger: rt.logger,
    }),
    hashIp,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    sitemapMaxSites: config.SITEMAP_MAX_SITES,
    sitemapCacheMs: config.SITEMAP_CACHE_MS,
    listCacheMs: config.SITES_LIST_CACHE_MS,
    countCacheMs: config.SITES_COUNT_CACHE_MS,
    trustProxy: config.TRUSTED_PROXIES,
    internalToken: config.INTERNAL_TOKEN,
  });
  await rt.serve(app, [
    { name: 're-queue sweep', close: async () => requeue.stop() },
    { name: 'system message relay', close: () => systemMessages.stop() },
    { name: 'job outbox relay', close: () => jobOutbox.stop() },
    { name: 'queues', close: () => Promise.all(Object.values(queues).map((q) => q.close())) },
    { name: 'queue redis', close: () => closeRedis(queueRedis) },
    { name: 'read replicas', close: () => reads.close() },
    { name: 'prisma', close: () => db.$disconnect() },
    { name: 'listing pool', close: () => listingPool.end() },
  ]);
}

main().catch(exitOnStartupError('sites'));
