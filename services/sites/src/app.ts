// The sites express app, built from injected dependencies (tests pass their own): sites,
// clicks, bookmarks, daily background and sitemap (docs/api-reference.md, docs/decisions/005-sites.md, docs/decisions/007-discovery-documents.md).
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
  type IpHasher,
} from '@svc/service-kit';
import { deleteUserData } from './actions/delete-user-data.js';
import { createListCaches } from './actions/list-sites.js';
import type { CaptchaVerifier } from './clients/captcha.js';
import type { DailyBgSource } from './clients/daily-bg-source.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { bookmarkRoutes } from './routes/bookmark-routes.js';
import { clickRoutes } from './routes/click-routes.js';
import { dailyBgRoutes } from './routes/daily-bg-routes.js';
import { toSitesExportPart } from './domain/user-export.js';
import { moderationRoutes } from './routes/moderation-routes.js';
import { siteRoutes, type PageFetcher } from './routes/site-routes.js';
import { sitemapRoutes } from './routes/sitemap-routes.js';
import { createSiteListReader } from './store/site-list-reader.js';
import { createSiteStore } from './store/site-store.js';
import { createSitemapReader, type SitemapReader } from './store/sitemap-reader.js';
import { createSubmissionStore } from './store/submission-store.js';
import { createUserDeletionStore } from './store/user-deletion-store.js';
import { createUserExportStore } from './store/user-export-store.js';
import { primaryReads, type SitesReads } from './store/read-routing.js';
import type { SiteListReader } from './store/site-list-reader.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  db: PrismaClient;
  /**
   * Plain pg pool on the same schema: GET /api/sites (store/site-list-reader.ts), the
   * sitemap (store/sitemap-reader.ts) and the submission transaction (store/submission-store.ts).
   */
  listingPool: pg.Pool;
  /**
   * Where each public read goes (store/read-routing.ts): main.ts builds it with the read
   * replicas; unset = every read on `db` and `listingPool`.
   */
  reads?: SitesReads;
  /** Request-path Redis (fails fast): rate limits, sessions, daily background cache. */
  redis: Redis;
  redisPrefix: string;
  /** ES256 public key verifying `sn_token` sessions. */
  /** The public keys that verify sessions (`loadJwtKeys(...).verifyKeys`, or one PEM). */
  publicKey: SessionVerifyKeys;
  /** Relay of `system_message_outbox` (chat's site_submitted), nudged after a commit. */
  systemMessages: Pick<OutboxRelay, 'nudge'>;
  /** Relay of `job_outbox` (scrape jobs), nudged after a commit. */
  jobOutbox: Pick<OutboxRelay, 'nudge'>;
  /** Set when CAPTCHA_SECRET_KEY is. */
  captcha?: CaptchaVerifier;
  /**
   * SSRF-safe page fetcher for the claim check (@svc/safe-fetch); its `checkUrl` (the URL
   * policy with the same allow-list) also judges submitted URLs.
   */
  pageFetcher: PageFetcher;
  dailyBg: DailyBgSource;
  hashIp: IpHasher;
  /** Origin of the public site, for absolute sitemap URLs. */
  publicBaseUrl: string;
  sitemapMaxSites?: number;
  /** How long a rendered sitemap file is served again (SITEMAP_CACHE_MS); default 10 min. */
  sitemapCacheMs?: number;
  /** GET /api/sites page cache lifetime (actions/list-sites.ts); default 0 = off. */
  listCacheMs?: number;
  /** GET /api/sites match-count cache lifetime; default 0 = off. */
  countCacheMs?: number;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
  /** INTERNAL_TOKEN: the shared secret of the internal calls (auth's data export and deletion). */
  internalToken: string;
}

export function buildApp(deps: AppDeps): Express {
  const store = createSiteStore(deps.db);
  const { redis, redisPrefix } = deps;
  const reads =
    deps.reads ??
    primaryReads(
      {
        store,
        listReader: createSiteListReader(deps.listingPool),
        sitemapReader: createSitemapReader(deps.listingPool),
      },
      deps.metrics?.registry,
    );
  // The listing's and the sitemap's loads, routed: the actions and their caches stay as they are.
  const listReader: SiteListReader = {
    page: (filter) => reads.read('listSites', undefined, (c) => c.listReader.page(filter)),
    total: (filter) => reads.read('listSites', undefined, (c) => c.listReader.total(filter)),
  };
  const sitemapReader: SitemapReader = {
    hottest: (limit) => reads.read('sitemap', undefined, (c) => c.sitemapReader.hottest(limit)),
    hashRange: (range, limit) =>
      reads.read('sitemap', undefined, (c) => c.sitemapReader.hashRange(range, limit)),
  };
  return createServiceApp({
    service: 'sites',
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
        toSitesExportPart(userId, await exports.read(userId)),
      );
      // auth's account deletion job: this service's part (docs/decisions/035-account-deletion.md).
      const deletions = createUserDeletionStore(deps.db);
      registerUserDeletion(app, deps.internalToken, (userId, pseudonym) =>
        deleteUserData({ deletions, logger: deps.logger }, userId, pseudonym),
      );
      app.use(sessionMiddleware({ publicKey: deps.publicKey, redis, prefix: redisPrefix }));
      const listCache = createListCaches(deps.listCacheMs ?? 0, deps.countCacheMs ?? 0);
      siteRoutes(app, {
        store,
        submissions: createSubmissionStore(deps.listingPool),
        redis,
        redisPrefix,
        systemMessages: deps.systemMessages,
        jobOutbox: deps.jobOutbox,
        captcha: deps.captcha,
        pageFetcher: deps.pageFetcher,
        hashIp: deps.hashIp,
        listReader,
        listCache,
        reads,
      });
      clickRoutes(app, { store, redis, redisPrefix });
      bookmarkRoutes(app, { store, reads, redis, redisPrefix });
      dailyBgRoutes(app, deps.dailyBg);
      const sitemap = sitemapRoutes(app, {
        reader: sitemapReader,
        listReader,
        publicBaseUrl: deps.publicBaseUrl,
        maxSites: deps.sitemapMaxSites ?? 10_000,
        cacheMs: deps.sitemapCacheMs ?? 10 * 60_000,
      });
      moderationRoutes(app, {
        store,
        invalidateCaches: async (moderatorId) => {
          // The reloads, and the moderator's own reads, then wait for the change on a replica.
          await reads.wrote(moderatorId);
          listCache.clear();
          sitemap.invalidate();
        },
      });
    },
  });
}
