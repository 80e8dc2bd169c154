// Builds the real chat app on a fresh PostgreSQL schema and its own Redis prefix, with a
// pub/sub subscriber that records every published event.
import { fileURLToPath } from 'node:url';
import {
  createLogger,
  createPgAdapter,
  createRedis,
  eventsChannel,
  signSessionToken,
  waitForRedis,
  type DatabaseTarget,
  type Logger,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  generateTestKeyPair,
  testRedisPrefix,
} from '@svc/service-kit/testing';
import { buildApp, buildRoom, type AppDeps } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';

export const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
export const INTERNAL_TOKEN = 'test-internal-token';

export interface PublishedEvent {
  event: string;
  payload: Record<string, unknown>;
}

export async function startHarness(
  opts: {
    dbTarget?: (t: DatabaseTarget) => DatabaseTarget;
    redisUrl?: string;
  } = {},
) {
  const logger: Logger = createLogger('chat-test', 'silent');
  const database = await createTestDatabase(migrationsDir);
  const target = opts.dbTarget ? opts.dbTarget(database.target) : database.target;
  const db = new PrismaClient({ adapter: createPgAdapter(target, { max: 4 }) });
  const redis = createRedis(opts.redisUrl ?? TEST_REDIS_URL, logger, { name: 'chat-test' });
  await waitForRedis(redis);
  const redisPrefix = testRedisPrefix();
  const keys = generateTestKeyPair();

  const events: PublishedEvent[] = [];
  const subscriber = createRedis(TEST_REDIS_URL, logger, {
    name: 'chat-test-sub',
    forQueues: true,
  });
  await subscriber.subscribe(eventsChannel(redisPrefix));
  subscriber.on('message', (_channel: string, raw: string) => events.push(JSON.parse(raw)));

  const deps: AppDeps = {
    logger,
    db,
    redis,
    redisPrefix,
    publicKey: keys.publicKey,
    ipHashSecret: 'test-ip-secret',
    internalToken: INTERNAL_TOKEN,
  };
  const room = buildRoom(deps);
  const app = buildApp(deps, room);

  function sessionCookie(user: { id: string; username: string; isModerator?: boolean }) {
    const { token } = signSessionToken(
      { ...user, email: `${user.username}@example.com` },
      keys.privateKey,
    );
    return `sn_token=${token}`;
  }

  /** Waits until `count` events matching `pred` were published (pub/sub is asynchronous). */
  async function waitForEvents(pred: (e: PublishedEvent) => boolean, count = 1, ms = 3000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const hits = events.filter(pred);
      if (hits.length >= count || Date.now() > deadline) return hits;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    app,
    room,
    db,
    redis,
    redisPrefix,
    database,
    events,
    logger,
    sessionCookie,
    waitForEvents,
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
      await deleteRedisPrefix(redis, redisPrefix).catch(() => undefined);
      redis.disconnect();
      await db.$disconnect();
      await database.drop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;
