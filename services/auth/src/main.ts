// auth process: configuration, wiring, listen, graceful shutdown.
import { createHash } from 'node:crypto';
import {
  createLogger,
  createMetrics,
  createPgAdapter,
  createRedis,
  exitOnStartupError,
  loadJwtKeys,
  resolveDatabaseTarget,
  startService,
} from '@svc/service-kit';
import { buildApp } from './app.js';
import { loadAuthConfig } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createDevMailer, createResendMailer } from './mailer.js';

async function main() {
  const config = loadAuthConfig();
  const logger = createLogger('auth', config.LOG_LEVEL);
  const keys = loadJwtKeys({
    privateKey: config.JWT_PRIVATE_KEY,
    publicKey: config.JWT_PUBLIC_KEY,
    production: config.NODE_ENV === 'production',
    needPrivate: true,
  });
  const target = resolveDatabaseTarget(config.AUTH_DATABASE_URL, config.DATABASE_URL, 'auth');
  const db = new PrismaClient({ adapter: createPgAdapter(target) });
  const redis = createRedis(config.REDIS_URL, logger, { name: 'auth' });
  const mailer = config.RESEND_API_KEY
    ? createResendMailer({ apiKey: config.RESEND_API_KEY, baseUrl: config.RESEND_BASE_URL, from: config.EMAIL_FROM })
    : createDevMailer(logger);
  const codeSecret =
    config.LOGIN_CODE_SECRET ?? createHash('sha256').update(`login-codes:${keys.privateKey}`).digest('hex');

  const app = buildApp({
    db,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    mailer,
    logger,
    metrics: createMetrics('auth'),
    keys: { privateKey: keys.privateKey!, publicKey: keys.publicKey },
    codeSecret,
    trustProxy: config.TRUSTED_PROXIES,
  });
  await startService({
    name: 'auth',
    handler: app,
    port: config.PORT,
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    resources: [() => db.$disconnect(), () => redis.quit()],
  });
}

main().catch(exitOnStartupError('auth'));
