// HTTP of /api/v1/apps* and /api/v1/categories: parse with the shared schemas, apply the
// limits, call the actions or a store read, shape the answer.
import type { Express, RequestHandler } from 'express';
import {
  APP_CATEGORIES,
  AppListQuery,
  AppSlugParams,
  ERROR_MESSAGES,
  ReportAppBody,
  SubmitAppBody,
  UpdateAppBody,
  WithdrawAppQuery,
} from '@svc/types';
import { byIp, notFound, type OutboxRelay, type SystemMessageOutbox } from '@svc/service-kit';
import { callerOf, type AuthRequirement } from './authentication.js';
import { toDetail } from '../domain/app-record.js';
import { reportApp } from '../actions/report-app.js';
import { submitApp } from '../actions/submit-app.js';
import { updateApp } from '../actions/update-app.js';
import { withdrawApp } from '../actions/withdraw-app.js';
import type { Listing } from '../store/listing.js';
import type { AppStoreReads } from '../store/read-routing.js';
import type { RateLimits } from './rate-limits.js';
import type { AppStore } from '../store/store.js';
import type { WithdrawalStore } from '../store/withdrawal-store.js';

export interface AppsRoutesDeps {
  store: AppStore;
  listing: Listing;
  /** Where the detail is read (store/read-routing.ts); `wrote` after the writes here. */
  reads: AppStoreReads;
  /** The report's and the withdrawal's `wrote` (reads.wrote for a known caller). */
  wrote: (caller: string) => Promise<void>;
  limits: RateLimits;
  authenticate: (requirement: AuthRequirement) => RequestHandler;
  /** The app_blocked message is already in the outbox; this only hurries its relay. */
  systemMessages: Pick<SystemMessageOutbox, 'nudge'>;
  /** The author's e-mail about the block is in the job outbox; this hurries its relay. */
  jobs?: Pick<OutboxRelay, 'nudge'>;
  /** HMAC key of the reporter-network hash stored with each report. */
  ipHashSecret: string;
  withdrawals: WithdrawalStore;
  /** The clock of withdrawals and slug reservations (tests move it). */
  now: () => Date;
}

export function appsRoutes(app: Express, deps: AppsRoutesDeps): void {
  const { listing, limits, authenticate } = deps;
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
    const created = await submitApp(deps, caller, body);
    res.status(201).json({ id: created.id, slug: created.slug, status: 'approved' });
  });

  app.get('/api/v1/apps/:slug', publicLimit, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const found = await deps.reads.read(
      'appDetail',
      undefined,
      (c) => c.store.findApprovedBySlug(slug),
      { confirmOnPrimary: (app) => app === null },
    );
    if (!found) throw notFound(ERROR_MESSAGES.appNotFound);
    res.json({ app: toDetail(found) });
  });

  app.patch(
    '/api/v1/apps/:slug',
    authenticate('session-or-key'),
    authenticatedLimit,
    async (req, res) => {
      const { slug } = AppSlugParams.parse(req.params);
      const updated = await updateApp(deps, callerOf(req), slug, () =>
        UpdateAppBody.parse(req.body ?? {}),
      );
      res.json({ app: toDetail(updated) });
    },
  );

  // The author's session only: a key that leaked must not be able to take the app down.
  app.delete('/api/v1/apps/:slug', authenticate('session'), authenticatedLimit, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const { permanent } = WithdrawAppQuery.parse(req.query);
    await withdrawApp(deps, callerOf(req), slug, { permanent: permanent === 'true', now: deps.now() });
    res.status(204).end();
  });

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
      res.json({ success: true, ...(await reportApp(deps, caller, slug, body, ip)) });
    },
  );
}
