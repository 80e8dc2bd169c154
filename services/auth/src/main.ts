// auth process: configuration, wiring, listen, graceful shutdown.
import './instrument.js';
import { createHash } from 'node:crypto';
import {
  createPgAdapter,
  createRedis,
  createRuntime,
  exitOnStartupError,
  jwtKeyIds,
  loadJwtKeys,
  queuesOf,
  registerQueueGauge,
  withTimeout,
} from '@svc/service-kit';
import { buildApp } from './app.js';
import { loadAuthConfig } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createDevMailer, createResendMailer } from './clients/mailer.js';
import { createUserDataServices } from './clients/user-data-services.js';
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
  const db = new PrismaClient({
    adapter: createPgAdapter(rt.databaseTarget(config.AUTH_DATABASE_URL)),
  });
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
    userData: createUserDataServices({
      urls: { 'app-store': config.APP_STORE_URL, sites: config.SITES_URL, chat: config.CHAT_URL },
      internalToken: config.INTERNAL_TOKEN,
      timeoutMs: config.DATA_EXPORT_TIMEOUT_MS,
      logger: rt.logger,
    }),
  });
  // The authors' e-mails about blocks and restores (app-store's notify-email jobs).
  const queueRedis = createRedis(config.REDIS_URL, rt.logger, {
    name: 'auth-queue',
    forQueues: true,
  });
  const noticeWorker = startNoticeWorker({
    store: createAuthStore(db),
    mailer,
    connection: queueRedis,
    redisPrefix: config.REDIS_PREFIX,
    logger: rt.logger,
  });
  rt.watchWorkers([noticeWorker], config.WORKER_STUCK_AFTER_MS);
  // The queue's depth in /metrics, for the queue alerts.
  registerQueueGauge(rt.metrics, queuesOf([noticeWorker]), rt.logger);
  // Bounded: with Redis down, closing the worker would wait for it forever. An unfinished
  // job is simply run again later (Resend drops the repeat by its idempotency key).
  await rt.serve(app, [
    {
      name: 'notice worker',
      close: () => withTimeout(noticeWorker.close(), 5000, 'notice worker').catch(() => undefined),
    },
    { name: 'queue redis', close: () => queueRedis.disconnect() },
    { name: 'prisma', close: () => db.$disconnect() },
  ]);
}

main().catch(exitOnStartupError('auth'));
