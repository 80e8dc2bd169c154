// auth's express app, built from injected dependencies (tests pass their own).
import type { Express } from 'express';
import type { Redis } from '@svc/service-kit';
import {
  createServiceApp,
  postgresCheck,
  redisCheck,
  sessionMiddleware,
  type SessionVerifyKeys,
  type Logger,
  type Metrics,
} from '@svc/service-kit';
import { createAccountDeletion } from './actions/delete-account.js';
import { createDataExport } from './actions/export-data.js';
import { createLogin } from './actions/login.js';
import type { Mailer } from './clients/mailer.js';
import type { UserDataServices } from './clients/user-data-services.js';
import { createModerators } from './actions/moderators.js';
import { authRoutes } from './routes/auth-routes.js';
import { exportRoutes } from './routes/export-routes.js';
import { createAuthStore, type AuthDb } from './store/store.js';

export interface AuthDeps {
  db: AuthDb;
  redis: Redis;
  redisPrefix: string;
  mailer: Mailer;
  logger: Logger;
  metrics?: Metrics;
  /** privateKey signs sessions; publicKey: the keys that verify them (`loadJwtKeys(...).verifyKeys`). */
  keys: { privateKey: string; publicKey: SessionVerifyKeys };
  codeSecret: string;
  trustProxy?: string;
  /** MODERATOR_EMAILS, lower-cased (default: none). */
  moderatorEmails?: readonly string[];
  /** The services asked for their part of a data export (the internal path). */
  userData: UserDataServices;
  /** The job outbox relay (account deletion's jobs), nudged after a commit that wrote rows. */
  jobs?: { nudge(): void };
}

export function buildApp(deps: AuthDeps): Express {
  const store = createAuthStore(deps.db);
  const login = createLogin({ store, mailer: deps.mailer, codeSecret: deps.codeSecret });
  const moderators = createModerators({
    store,
    redis: deps.redis,
    prefix: deps.redisPrefix,
    configured: deps.moderatorEmails ?? [],
  });
  const accountDeletion = createAccountDeletion({
    store,
    login,
    redis: deps.redis,
    redisPrefix: deps.redisPrefix,
    jobs: deps.jobs,
  });
  return createServiceApp({
    service: 'auth',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    readiness: { postgres: postgresCheck(deps.db), redis: redisCheck(deps.redis) },
    routes: (app) => {
      app.use(sessionMiddleware({ publicKey: deps.keys.publicKey, redis: deps.redis, prefix: deps.redisPrefix }));
      app.use(
        '/api/auth',
        authRoutes({
          login,
          accountDeletion,
          store,
          moderators,
          redis: deps.redis,
          redisPrefix: deps.redisPrefix,
          privateKey: deps.keys.privateKey,
        }),
      );
      app.use(
        '/api/auth',
        exportRoutes({
          dataExport: createDataExport({ store, services: deps.userData, moderators }),
          redis: deps.redis,
          redisPrefix: deps.redisPrefix,
          logger: deps.logger,
        }),
      );
    },
  });
}
