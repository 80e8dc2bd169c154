// The app-store express app (/api/v1), built from injected dependencies (tests pass their
// own PostgreSQL schema, Redis prefix and system-message producer).
import type { Express } from 'express';
import type pg from 'pg';
import {
  createServiceApp,
  registerUserDeletion,
  registerUserExport,
  postgresCheck,
  redisCheck,
  sessionMiddleware,
  type SessionVerifyKeys,
  type Logger,
  type Metrics,
  type Redis,
  type OutboxRelay,
  type SystemMessageOutbox,
} from '@svc/service-kit';
import { createAuthentication } from './routes/authentication.js';
import { DEV_IP_HASH_SECRET } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { createListing, createListingTotals } from './store/listing.js';
import { createListingReader } from './store/listing-reader.js';
import { createRateLimits } from './routes/rate-limits.js';
import { appsRoutes } from './routes/apps-routes.js';
import { iconRoutes } from './routes/icon-routes.js';
import { toAppsExportPart } from './domain/user-export.js';
import { deleteUserData, userDeletionCounter } from './actions/delete-user-data.js';
import { keysRoutes } from './routes/keys-routes.js';
import { meRoutes } from './routes/me-routes.js';
import { moderationRoutes } from './routes/moderation-routes.js';
import { createAuthorStore } from './store/author-store.js';
import { createModerationStore } from './store/moderation-store.js';
import { createAppStore } from './store/store.js';
import { createUserDeletionStore } from './store/user-deletion-store.js';
import { createUserExportStore } from './store/user-export-store.js';
import { createWithdrawalStore } from './store/withdrawal-store.js';
import { primaryReads, type AppStoreReads } from './store/read-routing.js';
import type { ListingReader } from './store/listing-reader.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  db: PrismaClient;
  /** Plain pg pool on the same schema, for the listing's hot path (see store/listing-reader.ts). */
  listingPool: pg.Pool;
  /**
   * Where each public read goes (store/read-routing.ts): main.ts builds it with the read
   * replicas; unset = every read on `db` and `listingPool`.
   */
  reads?: AppStoreReads;
  redis: Redis;
  /** REDIS_PREFIX of the deployment (rate-limit counters, caches, revoked sessions). */
  redisPrefix: string;
  /** ES256 public key (PEM) verifying `sn_token` sessions. */
  /** The public keys that verify sessions (`loadJwtKeys(...).verifyKeys`, or one PEM). */
  publicKey: SessionVerifyKeys;
  /** Relays chat system messages (app_blocked) that the store wrote with the block. */
  systemMessages: Pick<SystemMessageOutbox, 'nudge'>;
  /** Relays the job outbox (notify-email: the author's e-mail about a block or restore). */
  jobs?: Pick<OutboxRelay, 'nudge'>;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
  /**
   * Multiplies every rate limit of this app (in-process tests; a process's limits follow
   * the kit's RATE_LIMIT_SCALE instead).
   */
  rateLimitScale?: number;
  /** How long each process reuses a listing answer (ms, 0 = off); default 1000. */
  listingCacheMs?: number;
  /** How long a listing total is reused from Redis (ms, 0 = off); default 10 000. */
  totalsCacheMs?: number;
  /** HMAC key of the reporter-network hash (IP_HASH_SECRET; main.ts always passes it). */
  ipHashSecret?: string;
  /** REPORT_DISTINCT_NETWORKS: one client network counts once toward the block threshold. */
  reportDistinctNetworks?: boolean;
  /** The clock of withdrawals and slug reservations (tests move it days ahead). */
  now?: () => Date;
  /** INTERNAL_TOKEN: the shared secret of the internal calls (auth's data export and deletion). */
  internalToken: string;
}

export function buildApp(deps: AppDeps): Express {
  const store = createAppStore(deps.db, {
    reportDistinctNetworks: deps.reportDistinctNetworks ?? false,
  });
  const reads =
    deps.reads ??
    primaryReads(
      { store, authors: createAuthorStore(deps.db), listingReader: createListingReader(deps.listingPool) },
      deps.metrics?.registry,
    );
  // The listing's loads, routed: the listing and its caches stay as they are.
  const reader: ListingReader = {
    page: (filter, limit, offset) =>
      reads.read('listing', undefined, (c) => c.listingReader.page(filter, limit, offset)),
    total: (filter) => reads.read('listing', undefined, (c) => c.listingReader.total(filter)),
  };
  const wrote = (caller: string | undefined) => reads.wrote(caller);
  const listing = createListing({
    reader,
    totals: createListingTotals(deps.redis, deps.redisPrefix, deps.logger, deps.totalsCacheMs ?? 10_000),
    pageCacheMs: deps.listingCacheMs ?? 1000,
    wrote,
  });
  const limits = createRateLimits({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    scale: deps.rateLimitScale,
  });
  const authenticate = createAuthentication({
    store,
    sessions: sessionMiddleware({
      publicKey: deps.publicKey,
      redis: deps.redis,
      prefix: deps.redisPrefix,
    }),
    keyFailures: limits.keyFailures,
  });
  return createServiceApp({
    service: 'app-store',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    readiness: {
      postgres: postgresCheck(deps.db),
      redis: redisCheck(deps.redis),
      ...reads.readiness,
    },
    routes: (app) => {
      // auth's data export: this service's section (docs/decisions/034-data-export.md).
      const exports = createUserExportStore(deps.db);
      registerUserExport(app, deps.internalToken, async (userId) =>
        toAppsExportPart(userId, await exports.read(userId)),
      );
      // auth's account deletion: this service's part (docs/decisions/035-account-deletion.md).
      const deletion = {
        deletions: createUserDeletionStore(deps.db),
        listing,
        logger: deps.logger,
        now: deps.now ?? (() => new Date()),
        counted: userDeletionCounter(deps.metrics?.registry),
      };
      registerUserDeletion(app, deps.internalToken, (userId, pseudonym) =>
        deleteUserData(deletion, userId, pseudonym),
      );
      appsRoutes(app, {
        store,
        listing,
        reads,
        wrote,
        limits,
        authenticate,
        systemMessages: deps.systemMessages,
        jobs: deps.jobs,
        ipHashSecret: deps.ipHashSecret ?? DEV_IP_HASH_SECRET,
        withdrawals: createWithdrawalStore(deps.db),
        now: deps.now ?? (() => new Date()),
      });
      iconRoutes(app, { reads, limits });
      keysRoutes(app, { store, limits, authenticate });
      meRoutes(app, { store, authors: createAuthorStore(deps.db), listing, reads, limits, authenticate });
      moderationRoutes(app, {
        moderation: createModerationStore(deps.db),
        listing,
        limits,
        authenticate,
        systemMessages: deps.systemMessages,
        jobs: deps.jobs,
      });
    },
  });
}
