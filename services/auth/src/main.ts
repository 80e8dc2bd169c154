// auth process: configuration, wiring, listen, graceful shutdown.
import './instrument.js';
import { createHash } from 'node:crypto';
import { createPgAdapter, createRuntime, exitOnStartupError, jwtKeyIds, loadJwtKeys } from '@svc/service-kit';
import { buildApp } from './app.js';
import { loadAuthConfig } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { createDevMailer, createResendMailer } from './mailer.js';

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
  });
  await rt.serve(app, [{ name: 'prisma', close: () => db.$disconnect() }]);
}

main().catch(exitOnStartupError('auth'));
