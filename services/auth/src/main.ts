// auth process: configuration, wiring, listen, graceful shutdown.
import './instrument.js';
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { USER_DELETION_QUEUE } from '@svc/types';
import {
  createPgAdapter,
  createPgPool,
  createRedis,
  createRuntime,
  exitOnStartupError,
  jwtKeyIds,
  loadJwtKeys,
  queuesOf,
  queuePrefix,
  registerQueueGauge,
  startJobOutbox,
  withTimeout,
} from '@svc/service-kit';
import { buildApp } from './app.js';
import { loadAuthConfig } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createDevMailer, createResendMailer } from './clients/mailer.js';
import { createUserDataServices } from './clients/user-data-services.js';
import { startDeletionWorker, USER_DELETION_JOB_OPTIONS } from './worker/deletion-worker.js';
import { startNoticeWorker } from './worker/notice-worker.js';
import { createAuthStore } from './store/store.js';

async function main() {
  const config = loadAuthConfig();
  const keys = loadJwtKeys({
    privateKey: config.JWT_PRIVATE_KEY,
    publicKey: config.JWT_PUBLIC_KEY,
    otherPublicKeys: config.JWT_PUBLIC_KEYS,
    production: config.NODE_ENV === 'production',
    needPrivate: true,
  });
  const rt = createRuntime('auth', config);
  rt.logger.info(jwtKeyIds(keys), 'session keys');
  const target = rt.databaseTarget(config.AUTH_DATABASE_URL);
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const mailer = config.RESEND_API_KEY
    ? createResendMailer({
        apiKey: config.RESEND_API_KEY,
        baseUrl: config.RESEND_BASE_URL,
        from: config.EMAIL_FROM,
        timeoutMs: config.RESEND_TIMEOUT_MS,
      })
    : createDevMailer(rt.logger);
  const codeSecret =
    config.LOGIN_CODE_SECRET ??
    createHash('sha256').update(`login-codes:${keys.privateKey}`).digest('hex');

  const userData = createUserDataServices({
    urls: { 'app-store': config.APP_STORE_URL, sites: config.SITES_URL, chat: config.CHAT_URL },
    internalToken: config.INTERNAL_TOKEN,
    timeoutMs: config.DATA_EXPORT_TIMEOUT_MS,
    logger: rt.logger,
  });
  const queueRedis = createRedis(config.REDIS_URL, rt.logger, {
    name: 'auth-queue',
    forQueues: true,
  });
  // Account deletion's per-service jobs (job_outbox) to the user-deletion queue.
  const outboxPool = createPgPool(target, 2);
  const deletionQueue = new Queue(USER_DELETION_QUEUE, {
    connection: queueRedis,
    prefix: queuePrefix(config.REDIS_PREFIX, queueRedis),
  });
  const jobOutbox = startJobOutbox({
    pool: outboxPool,
    logger: rt.logger,
    service: 'auth',
    registry: rt.metrics.registry,
    queues: { [USER_DELETION_QUEUE]: { queue: deletionQueue, options: USER_DELETION_JOB_OPTIONS } },
  });

  const app = buildApp({
    db,
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    mailer,
    logger: rt.logger,
    metrics: rt.metrics,
    keys: { privateKey: keys.privateKey!, publicKey: keys.verifyKeys },
    codeSecret,
    trustProxy: config.TRUSTED_PROXIES,
    moderatorEmails: config.MODERATOR_EMAILS,
    userData,
    jobs: jobOutbox,
  });
  const noticeWorker = startNoticeWorker({
    store: createAuthStore(db),
    mailer,
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    logger: rt.logger,
  });
  // Each service's part of an account deletion, asked until it is done.
  const deletionWorker = startDeletionWorker({
    services: userData,
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    logger: rt.logger,
    registry: rt.metrics.registry,
  });
  rt.watchWorkers([noticeWorker, deletionWorker], config.WORKER_STUCK_AFTER_MS);
  // The queues' depth in /metrics, for the queue alerts.
  registerQueueGauge(rt.metrics, queuesOf([noticeWorker, deletionWorker]), rt.logger);
  // Bounded: with Redis down, closing the worker would wait for it forever. An unfinished
  // job is simply run again later (Resend drops the repeat by its idempotency key).
  await rt.serve(app, [
    { name: 'job outbox', close: () => jobOutbox.stop() },
    {
      name: 'workers',
      close: () =>
        withTimeout(
          Promise.all([noticeWorker.close(), deletionWorker.close()]),
          5000,
          'workers',
        ).catch(() => undefined),
    },
    { name: 'deletion queue', close: () => deletionQueue.close() },
    { name: 'queue redis', close: () => queueRedis.disconnect() },
    { name: 'outbox pool', close: () => outboxPool.end() },
    { name: 'prisma', close: () => db.$disconnect() },
  ]);
}

main().catch(exitOnStartupError('auth'));
