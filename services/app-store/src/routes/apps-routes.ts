// HTTP of /api/v1/apps* and /api/v1/categories: parse with the shared schemas, call the
// store and the domain rules, shape the answer.
import type { Express, RequestHandler } from 'express';
import {
  APP_CATEGORIES,
  AppListQuery,
  AppSlugParams,
  ERROR_MESSAGES,
  ReportAppBody,
  SubmitAppBody,
  UpdateAppBody,
} from '@svc/types';
import {
  byIp,
  newId,
  badRequest,
  conflict,
  forbidden,
  notFound,
  type OutboxRelay,
  type SystemMessageOutbox,
} from '@svc/service-kit';
import { callerOf, type AuthRequirement } from './authentication.js';
import { toDetail } from '../domain/app-record.js';
import { InvalidIconSvg, appChanges, changesListingMembership } from '../domain/app-update.js';
import { reportOutcome } from '../domain/report-threshold.js';
import { reporterNetworkHash } from '../domain/reporter-network.js';
import type { Listing } from '../store/listing.js';
import type { RateLimits } from './rate-limits.js';
import { SlugTaken, type AppRow, type AppStore } from '../store/store.js';

export interface AppsRoutesDeps {
  store: AppStore;
  listing: Listing;
  limits: RateLimits;
  authenticate: (requirement: AuthRequirement) => RequestHandler;
  /** The app_blocked message is already in the outbox; this only hurries its relay. */
  systemMessages: Pick<SystemMessageOutbox, 'nudge'>;
  /** The author's e-mail about the block is in the job outbox; this hurries its relay. */
  jobs?: Pick<OutboxRelay, 'nudge'>;
  /** HMAC key of the reporter-network hash stored with each report. */
  ipHashSecret: string;
}

export function appsRoutes(app: Express, deps: AppsRoutesDeps): void {
  const { store, listing, limits, authenticate } = deps;
  const publicLimit = limits.public.middleware;
  const authenticatedLimit = limits.authenticated.middleware;

  app.get('/api/v1/categories', publicLimit, (_req, res) => {
    res.json({ categories: APP_CATEGORIES });
  });

  app.get('/api/v1/apps', publicLimit, async (req, res) => {
    const query = AppListQuery.parse(req.query);
    res.type('json').send(await listing.body(query));
  });

  app.post('/api/v1/apps', authenticate('session-or-key'), async (req, res) => {
    const caller = callerOf(req);
    const body = SubmitAppBody.parse(req.body);
    if (!(await limits.submit.consume(`user:${caller.userId}`, res))) return;
    if (caller.via === 'session') {
      await store.upsertDeveloper({
        userId: caller.userId,
        email: caller.email,
        username: caller.username,
      });
    }
    let created: AppRow;
    try {
      created = await store.createApp(newId(), body, {
        userId: caller.userId,
        authorName: caller.username,
      });
    } catch (err) {
      if (err instanceof SlugTaken) throw conflict(ERROR_MESSAGES.slugTaken);
      throw err;
    }
    await listing.invalidate({ totals: true });
    res.status(201).json({ id: created.id, slug: created.slug, status: 'approved' });
  });

  app.get('/api/v1/apps/:slug', publicLimit, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const found = await store.findApprovedBySlug(slug);
    if (!found) throw notFound(ERROR_MESSAGES.appNotFound);
    res.json({ app: toDetail(found) });
  });

  app.patch(
    '/api/v1/apps/:slug',
    authenticate('session-or-key'),
    authenticatedLimit,
    async (req, res) => {
      const caller = callerOf(req);
      const { slug } = AppSlugParams.parse(req.params);
      const found = await store.findBySlug(slug);
      const isAuthor = found?.authorId === caller.userId;
      // A blocked app does not exist for anyone but its author.
      if (!found || (found.status === 'blocked' && !isAuthor))
        throw notFound(ERROR_MESSAGES.appNotFound);
      if (caller.apiKey && caller.apiKey.appId !== found.id)
        throw forbidden(ERROR_MESSAGES.keyNotValidForApp);
      if (!isAuthor) throw forbidden('Only the author of the app can update it');
      const body = UpdateAppBody.parse(req.body ?? {});
      let changes;
      try {
        changes = appChanges(body);
      } catch (err) {
        if (err instanceof InvalidIconSvg) throw badRequest(err.message);
        throw err;
      }
      if (caller.via === 'session') {
        await store.upsertDeveloper({
          userId: caller.userId,
          email: caller.email,
          username: caller.username,
        });
      }
      const updated = await store.updateApp(found.id, changes);
      await listing.invalidate({ totals: changesListingMembership(changes) });
      res.json({ app: toDetail(updated) });
    },
  );

  app.post(
    '/api/v1/apps/:slug/report',
    authenticate('session'),
    authenticatedLimit,
    async (req, res) => {
      const caller = callerOf(req);
      const { slug } = AppSlugParams.parse(req.params);
      const body = ReportAppBody.parse(req.body ?? {});
      // The hourly limits (per user, per client IP) before anything is read or written: a
      // refused report leaves no trace but the counters.
      const ip = byIp(req);
      if (!(await limits.reportPerUser.consume(`user:${caller.userId}`, res, { quiet: true })))
        return;
      if (!(await limits.reportPerIp.consume(`ip:${ip}`, res, { quiet: true }))) return;
      const result = await store.report(slug, caller.userId, body.reason, body.detail, {
        networkHash: reporterNetworkHash(deps.ipHashSecret, ip),
      });
      switch (result.kind) {
        case 'not-found':
          throw notFound(ERROR_MESSAGES.appNotFound);
        case 'blocked':
          throw conflict('App is already blocked');
        case 'own-app':
          throw forbidden('You cannot report your own app');
        case 'duplicate':
          throw conflict('You have already reported this app');
      }
      if (result.blockedNow) {
        await listing.invalidate({ totals: true });
        deps.systemMessages.nudge();
        deps.jobs?.nudge();
      }
      res.json({ success: true, ...reportOutcome(result.reportCount) });
    },
  );
}
