// Builds the real sites API app on a fresh PostgreSQL schema, its own Redis prefix (rate
// limits, sessions, BullMQ queues) and loopback fakes of the third-party services it calls:
// a Turnstile-shaped CAPTCHA verifier, a Bing-shaped image-of-the-day provider and a web
// site for the claim check (fetched through the real SSRF-safe fetcher).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import {
  createPgPool,
  createLogger,
  createMetrics,
  createReadRouter,
  replicaName,
  resolveReplicaTargets,
  createPgAdapter,
  createRedis,
  startJobOutbox,
  startSystemMessageRelay,
  queuePrefix,
  signSessionToken,
  waitForRedis,
  type DatabaseTarget,
  createIpHasher,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  generateTestKeyPair,
  testRedisPrefix,
  type TestReplicaCluster,
} from '@svc/service-kit/testing';
import { createSafeFetcher } from '@svc/safe-fetch';
import { SYSTEM_MESSAGE_QUEUE } from '@svc/types';
import { buildApp, type AppDeps } from '../src/app.js';
import { createCaptchaVerifier } from '../src/clients/captcha.js';
import { createDailyBgSource } from '../src/clients/daily-bg-source.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { primaryReads, SITES_READS, type SitesReads } from '../src/store/read-routing.js';
import { createSiteListReader } from '../src/store/site-list-reader.js';
import { createSitemapReader } from '../src/store/sitemap-reader.js';
import { createSiteStore } from '../src/store/site-store.js';
import { createQueues, JOB_OPTIONS, SCRAPE_QUEUE, TAG_QUEUE } from '../src/worker/queues.js';

export const migrationsDir = new URL('../prisma/migrations', import.meta.url).pathname;
/** The shared secret of the internal calls (auth's data export). */
export const INTERNAL_TOKEN = 'sites-test-internal-token';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback HTTP server whose handler a test can swap. */
export async function startFakeServer(initial: Handler) {
  let handler = initial;
  const requests: Array<{ method: string; url: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    setHandler(h: Handler) {
      handler = h;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeServer = Awaited<ReturnType<typeof startFakeServer>>;

export interface HarnessOptions {
  dbTarget?: (t: DatabaseTarget) => DatabaseTarget;
  /** CAPTCHA on, with this secret, against a fake verifier that accepts token 'good-token'. */
  captchaSecret?: string;
  redisUrl?: string;
  /**
   * The schema on this throwaway primary (testing/replica-harness.ts), and the public reads
   * routed to its replica as main.ts routes them (pollMs 100).
   */
  replicas?: { cluster: TestReplicaCluster; maxLagMs?: number };
}

export async function startHarness(opts: HarnessOptions = {}) {
  const logger = createLogger('sites-test', 'silent');
  const database = await createTestDatabase(migrationsDir, { url: opts.replicas?.cluster.primary.url });
  const target = opts.dbTarget ? opts.dbTarget(database.target) : database.target;
  const db = new PrismaClient({ adapter: createPgAdapter(target, { max: 10 }) });
  const listingPool = createPgPool(target, 5);
  const redisUrl = opts.redisUrl ?? TEST_REDIS_URL;
  const redis = createRedis(redisUrl, logger, { name: 'sites-test' });
  const queueRedis = createRedis(redisUrl, logger, { name: 'sites-test-queues', forQueues: true });
  await waitForRedis(redis);
  await waitForRedis(queueRedis);
  // Housekeeping client on the real Redis (never behind an outage proxy).
  const adminRedis = createRedis(TEST_REDIS_URL, logger, { name: 'sites-test-admin' });
  await waitForRedis(adminRedis);
  const redisPrefix = testRedisPrefix();
  const queues = createQueues(queueRedis, redisPrefix);
  const systemMessages = startSystemMessageRelay({
    connection: queueRedis,
    redisPrefix,
    pool: listingPool,
    logger,
    service: 'sites',
  });
  const jobOutbox = startJobOutbox({
    pool: listingPool,
    logger,
    service: 'sites',
    queues: { [SCRAPE_QUEUE]: { queue: queues[SCRAPE_QUEUE], options: JOB_OPTIONS } },
  });
  const chatQueue = new Queue(SYSTEM_MESSAGE_QUEUE, {
    connection: adminRedis,
    prefix: queuePrefix(redisPrefix, adminRedis),
  });
  const keys = generateTestKeyPair();
  const metrics = createMetrics('sites');
  const primaryClient = {
    store: createSiteStore(db),
    listReader: createSiteListReader(listingPool),
    sitemapReader: createSitemapReader(listingPool),
  };
  let reads: SitesReads = primaryReads(primaryClient, metrics.registry);
  if (opts.replicas) {
    const [replicaTarget] = resolveReplicaTargets(
      { shared: opts.replicas.cluster.replica.url },
      target,
    );
    const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget!, { max: 5 }) });
    const replicaPool = createPgPool(replicaTarget!, 5);
    reads = createReadRouter({
      service: 'sites',
      routing: SITES_READS,
      primary: primaryClient,
      primaryTarget: target,
      replicas: [
        {
          name: replicaName(replicaTarget!),
          target: replicaTarget!,
          client: {
            store: createSiteStore(replicaDb),
            listReader: createSiteListReader(replicaPool),
            sitemapReader: createSitemapReader(replicaPool),
          },
          close: async () => {
            await replicaDb.$disconnect();
            await replicaPool.end();
          },
        },
      ],
      maxLagMs: opts.replicas.maxLagMs,
      redis,
      redisPrefix,
      registry: metrics.registry,
      logger,
      pollMs: 100,
    });
  }

  const captchaVerifier = await startFakeServer((_req, res, body) => {
    const form = new URLSearchParams(body);
    const ok = form.get('secret') === opts.captchaSecret && form.get('response') === 'good-token';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ success: ok, 'error-codes': ok ? [] : ['invalid-input-response'] }));
  });
  const provider = await startFakeServer((_req, res) => {
    res.statusCode = 503;
    res.end();
  });
  const website = await startFakeServer((_req, res) => {
    res.end('<html><head><title>t</title></head><body></body></html>');
  });

  const deps: AppDeps = {
    logger,
    metrics,
    db,
    listingPool,
    reads,
    redis,
    redisPrefix,
    publicKey: keys.publicKey,
    systemMessages,
    jobOutbox,
    captcha: opts.captchaSecret
      ? createCaptchaVerifier({
          secret: opts.captchaSecret,
          verifyUrl: `${captchaVerifier.origin}/siteverify`,
        })
      : undefined,
    pageFetcher: createSafeFetcher({
      allowHosts: [`127.0.0.1:${website.port}`],
      totalTimeoutMs: 5000,
    }),
    dailyBg: createDailyBgSource({
      redis,
      redisPrefix,
      sourceUrl: `${provider.origin}/HPImageArchive.aspx?format=js&idx=0&n=1`,
      logger,
      timeoutMs: 2000,
    }),
    hashIp: createIpHasher('test-ip-secret'),
    publicBaseUrl: 'https://svc.example',
    internalToken: INTERNAL_TOKEN,
  };
  const app = buildApp(deps);

  function sessionCookie(user: {
    id: string;
    email?: string;
    username?: string;
    isModerator?: boolean;
  }): string {
    const { token } = signSessionToken(
      {
        id: user.id,
        email: user.email ?? `${user.id}@example.com`,
        username: user.username ?? user.id,
        isModerator: user.isModerator,
      },
      keys.privateKey,
    );
    return `sn_token=${token}`;
  }

  return {
    app,
    /** What `app` was built from: build variants with `buildApp({ ...h.deps, redis: dead })`. */
    deps,
    db,
    redis: adminRedis,
    redisPrefix,
    schema: database.target.schema,
    /** The app's plain pg pool (listing, submissions, outbox relays). */
    listingPool,
    dbTarget: database.target,
    /** Where the app's reads go (every read on the primary unless `replicas` was given). */
    reads,
    metrics,
    tagQueue: queues[TAG_QUEUE],
    scrapeQueue: queues[SCRAPE_QUEUE],
    chatQueue,
    /** The app's system-message relay: drain() before reading chatQueue. */
    outbox: systemMessages,
    /** The app's job-outbox relay: drain() before reading scrapeQueue. */
    jobOutbox,
    /** Both relays drained: what the submissions so far committed is now in BullMQ. */
    relay: () => Promise.all([systemMessages.drain(), jobOutbox.drain()]),
    captchaVerifier,
    provider,
    website,
    sessionCookie,
    async close() {
      await reads.close();
      await jobOutbox.stop();
      await Promise.all(Object.values(queues).map((q) => q.close()));
      await systemMessages.stop();
      await chatQueue.close();
      await deleteRedisPrefix(adminRedis, redisPrefix);
      redis.disconnect();
      queueRedis.disconnect();
      adminRedis.disconnect();
      await db.$disconnect();
      await listingPool.end();
      await Promise.all([captchaVerifier.close(), provider.close(), website.close()]);
      await database.drop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** Each test gets its own client IP (X-Forwarded-For from loopback is trusted), so per-IP
 *  limits of one test do not leak into the next. */
let ipCounter = 0;
export const nextIp = () => `198.51.100.${(ipCounter++ % 250) + 1}`;
