// Builds the real auth app on a fresh PostgreSQL schema, its own Redis prefix and a fake
// Resend API.
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { createLogger, createPgAdapter, createRedis, waitForRedis } from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  freePort,
  generateTestKeyPair,
  startFakeResend,
  testRedisPrefix,
} from '@svc/service-kit/testing';
import type { UserDataService } from '@svc/types';
import type { DatabaseTarget } from '@svc/service-kit';
import { buildApp } from '../src/app.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { createResendMailer } from '../src/clients/mailer.js';
import { createUserDataServices } from '../src/clients/user-data-services.js';

export const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
export const INTERNAL_TOKEN = 'auth-test-internal-token';

export async function startHarness(
  opts: {
    dbTarget?: (t: DatabaseTarget) => DatabaseTarget;
    moderatorEmails?: string[];
    /** Where the data export asks app-store, sites and chat (default: where nothing listens). */
    userDataUrls?: Record<UserDataService, string>;
    exportTimeoutMs?: number;
  } = {},
) {
  const logger = createLogger('auth-test', 'silent');
  const database = await createTestDatabase(migrationsDir);
  const target = opts.dbTarget ? opts.dbTarget(database.target) : database.target;
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const redis = createRedis(TEST_REDIS_URL, logger);
  await waitForRedis(redis);
  const redisPrefix = testRedisPrefix();
  const resend = await startFakeResend();
  const keys = generateTestKeyPair();
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const app = buildApp({
    db,
    redis,
    redisPrefix,
    logger,
    keys,
    codeSecret: 'test-secret',
    moderatorEmails: opts.moderatorEmails,
    mailer: createResendMailer({
      apiKey: 're_test_key',
      baseUrl: resend.baseUrl,
      from: 'Svc <login@svc.test>',
      timeoutMs: 1_000,
    }),
    userData: createUserDataServices({
      urls: opts.userDataUrls ?? { 'app-store': nowhere, sites: nowhere, chat: nowhere },
      internalToken: INTERNAL_TOKEN,
      timeoutMs: opts.exportTimeoutMs ?? 2_000,
      logger,
    }),
  });

  async function login(email: string) {
    await request(app).post('/api/auth/send-code').send({ email }).expect(200);
    const res = await request(app)
      .post('/api/auth/verify')
      .send({ email, code: resend.lastCodeFor(email) })
      .expect(200);
    const cookie = res.headers['set-cookie']![0]!.split(';')[0]!;
    return { user: res.body.user as { id: string; email: string; username: string }, cookie };
  }

  return {
    app,
    db,
    redis,
    redisPrefix,
    resend,
    keys,
    database,
    login,
    async close() {
      await deleteRedisPrefix(redis, redisPrefix);
      redis.disconnect();
      await db.$disconnect();
      await resend.close();
      await database.drop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;
