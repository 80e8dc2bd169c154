// Builds the real app-store app on a fresh PostgreSQL schema, its own Redis prefix and a
// real BullMQ producer; sessions are minted with a throwaway ES256 key pair as auth would.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import request from 'supertest';
import {
  createPgPool,
  closeRedis,
  createMetrics,
  createReadRouter,
  replicaName,
  resolveReplicaTargets,
  createLogger,
  createPgAdapter,
  createRedis,
  startJobOutbox,
  startSystemMessageRelay,
  queuePrefix,
  signSessionToken,
  waitForRedis,
  type DatabaseTarget,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  generateTestKeyPair,
  testRedisPrefix,
  type TestReplicaCluster,
} from '@svc/service-kit/testing';
import { NOTIFY_EMAIL_QUEUE, SYSTEM_MESSAGE_QUEUE } from '@svc/types';
import { NOTICE_JOB_OPTIONS } from '../src/domain/author-notice.js';
import { buildApp } from '../src/app.js';
import { PrismaClient, type Prisma } from '../src/generated/prisma/client.js';
import { createAuthorStore } from '../src/store/author-store.js';
import { createListingReader } from '../src/store/listing-reader.js';
import {
  APP_STORE_READS,
  primaryReads,
  type AppStoreReadClient,
  type AppStoreReads,
} from '../src/store/read-routing.js';
import { createAppStore } from '../src/store/store.js';

export const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
/** The shared secret of the internal calls (auth's data export). */
export const INTERNAL_TOKEN = 'app-store-test-internal-token';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  cookie: string;
}

export async function startHarness(
  opts: {
    dbTarget?: (t: DatabaseTarget) => DatabaseTarget;
    redisUrl?: string;
    rateLimitScale?: number;
    /** Listing answer reuse (ms); 0 here so direct database writes show at once. */
    listingCacheMs?: number;
    /** false: the app never nudges the outbox relay (it polls hourly); tests drain it. */
    relayOutbox?: boolean;
    /** REPORT_DISTINCT_NETWORKS. */
    reportDistinctNetworks?: boolean;
    /** express trust proxy, so a test can give each request its client IP (X-Forwarded-For). */
    trustProxy?: string | boolean | number;
    /** The app's clock of withdrawals and slug reservations. */
    now?: () => Date;
    /**
     * The schema on this throwaway primary (testing/replica-harness.ts), and the public reads
     * routed to its replica as main.ts routes them (pollMs 100).
     */
    replicas?: { cluster: TestReplicaCluster; maxLagMs?: number };
  } = {},
) {
  const logger = createLogger('app-store-test', 'silent');
  const database = await createTestDatabase(migrationsDir, { url: opts.replicas?.cluster.primary.url });
  const target = opts.dbTarget ? opts.dbTarget(database.target) : database.target;
  const db = new PrismaClient({ adapter: createPgAdapter(target, { max: 10 }) });
  const listingPool = createPgPool(target, 5);
  const redisUrl = opts.redisUrl ?? TEST_REDIS_URL;
  const redis = createRedis(redisUrl, logger, { name: 'app-store-test' });
  await waitForRedis(redis);
  // Test-side clients always reach the real Redis (even when the app's goes through a proxy).
  const adminRedis = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
  const queueRedis = createRedis(redisUrl, logger, { forQueues: true });
  const redisPrefix = testRedisPrefix();
  const keys = generateTestKeyPair();
  const systemMessages = startSystemMessageRelay({
    connection: queueRedis,
    redisPrefix,
    pool: listingPool,
    logger,
    service: 'app-store',
    intervalMs: opts.relayOutbox === false ? 3_600_000 : undefined,
  });
  // The author's notify-email jobs, relayed from job_outbox as main.ts does.
  const noticeQueue = new Queue(NOTIFY_EMAIL_QUEUE, {
    connection: queueRedis,
    prefix: queuePrefix(redisPrefix, queueRedis),
  });
  const jobs = startJobOutbox({
    pool: listingPool,
    logger,
    service: 'app-store',
    intervalMs: opts.relayOutbox === false ? 3_600_000 : undefined,
    queues: { [NOTIFY_EMAIL_QUEUE]: { queue: noticeQueue, options: NOTICE_JOB_OPTIONS } },
  });
  const metrics = createMetrics('app-store');
  const readClient = (client: PrismaClient, pool: typeof listingPool): AppStoreReadClient => ({
    store: createAppStore(client, { reportDistinctNetworks: opts.reportDistinctNetworks }),
    authors: createAuthorStore(client),
    listingReader: createListingReader(pool),
  });
  let reads: AppStoreReads = primaryReads(readClient(db, listingPool), metrics.registry);
  if (opts.replicas) {
    const [replicaTarget] = resolveReplicaTargets(
      { shared: opts.replicas.cluster.replica.url },
      target,
    );
    const replicaDb = new PrismaClient({ adapter: createPgAdapter(replicaTarget!, { max: 5 }) });
    const replicaPool = createPgPool(replicaTarget!, 5);
    reads = createReadRouter({
      service: 'app-store',
      routing: APP_STORE_READS,
      primary: readClient(db, listingPool),
      primaryTarget: target,
      replicas: [
        {
          name: replicaName(replicaTarget!),
          target: replicaTarget!,
          client: readClient(replicaDb, replicaPool),
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
  const app = buildApp({
    logger,
    metrics,
    db,
    listingPool,
    reads,
    redis,
    redisPrefix,
    publicKey: keys.publicKey,
    systemMessages: opts.relayOutbox === false ? { nudge: () => {} } : systemMessages,
    jobs: opts.relayOutbox === false ? { nudge: () => {} } : jobs,
    rateLimitScale: opts.rateLimitScale,
    listingCacheMs: opts.listingCacheMs ?? 0,
    ipHashSecret: 'test-ip-hash-secret',
    reportDistinctNetworks: opts.reportDistinctNetworks,
    trustProxy: opts.trustProxy,
    now: opts.now,
    internalToken: INTERNAL_TOKEN,
  });
  const queue = new Queue(SYSTEM_MESSAGE_QUEUE, {
    connection: adminRedis,
    prefix: queuePrefix(redisPrefix, adminRedis),
  });

  /** A user with a fresh session; `{ moderator: true }` makes it a moderator's session. */
  function user(name = 'dev', opts: { moderator?: boolean } = {}): TestUser {
    const id = `u_${randomBytes(6).toString('hex')}`;
    const username = `${name}_${id.slice(2, 8)}`;
    const email = `${username}@example.com`;
    const { token } = signSessionToken(
      { id, email, username, isModerator: opts.moderator === true },
      keys.privateKey,
    );
    return { id, email, username, cookie: `sn_token=${token}` };
  }

  let seeded = 0;
  /** Inserts an app directly (setup that is not the subject of the test). */
  async function seedApp(author: TestUser, data: Partial<Prisma.AppCreateInput> = {}) {
    seeded += 1;
    const slug = data.slug ?? `seed-${seeded}-${randomBytes(3).toString('hex')}`;
    return db.app.create({
      data: {
        id: `app_${randomBytes(6).toString('hex')}`,
        name: `Seeded ${seeded}`,
        url: `https://${slug}.example.com`,
        authorId: author.id,
        authorName: author.username,
        ...data,
        slug,
      },
    });
  }

  const submit = (u: TestUser, body: Record<string, unknown>) =>
    request(app).post('/api/v1/apps').set('Cookie', u.cookie).send(body);

  /** A key for the app, created through the API by its author. */
  async function createKey(author: TestUser, slug: string): Promise<{ id: string; key: string }> {
    const res = await request(app).post(`/api/v1/apps/${slug}/keys`).set('Cookie', author.cookie);
    if (res.status !== 201) throw new Error(`key creation answered ${res.status}`);
    return res.body;
  }

  /** Every job on the chat-system queue of this test's prefix, once the outbox is relayed. */
  const systemJobs = async () => {
    await systemMessages.drain();
    return queue.getJobs([
      'waiting',
      'active',
      'completed',
      'failed',
      'delayed',
      'prioritized',
    ]);
  };

  /** Every notify-email job of this test's prefix, once the job outbox is relayed. */
  const noticeJobs = async () => {
    await jobs.drain();
    return noticeQueue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
  };

  return {
    app,
    /** Where the app's reads go (every read on the primary unless `replicas` was given). */
    reads,
    metrics,
    db,
    listingPool,
    redis,
    redisPrefix,
    keys,
    database,
    user,
    seedApp,
    submit,
    createKey,
    systemJobs,
    noticeJobs,
    outbox: systemMessages,
    jobOutbox: jobs,
    async close() {
      await reads.close();
      await queue.close();
      await systemMessages.stop();
      await jobs.stop();
      await noticeQueue.close();
      await deleteRedisPrefix(adminRedis, redisPrefix).catch(() => {});
      await closeRedis(queueRedis);
      await closeRedis(adminRedis);
      redis.disconnect();
      await db.$disconnect();
      await listingPool.end();
      await database.drop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;
