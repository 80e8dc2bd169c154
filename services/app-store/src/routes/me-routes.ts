// HTTP of /api/v1/me*: the caller, their apps, their installed apps.
import type { Express, RequestHandler } from 'express';
import { AppSlugParams, ERROR_MESSAGES } from '@svc/types';
import { notFound } from '@svc/service-kit';
import { callerOf, type AuthRequirement } from '../authentication.js';
import { toMyApp } from '../domain/app-record.js';
import { avatarUrl } from '../domain/avatar.js';
import type { RateLimits } from '../rate-limits.js';
import type { Listing } from '../listing.js';
import type { AppStore } from '../store.js';

export function meRoutes(
  app: Express,
  deps: {
    store: AppStore;
    listing: Listing;
    limits: RateLimits;
    authenticate: (requirement: AuthRequirement) => RequestHandler;
  },
): void {
  const { store } = deps;
  const sessionOrKey = [deps.authenticate('session-or-key'), deps.limits.authenticated.middleware];
  const sessionOnly = [deps.authenticate('session'), deps.limits.authenticated.middleware];

  app.get('/api/v1/me', ...sessionOrKey, (req, res) => {
    const caller = callerOf(req);
    res.json({
      user: {
        id: caller.userId,
        display_name: caller.username,
        email: caller.email,
        avatar_url: avatarUrl(caller.email),
      },
    });
  });

  app.get('/api/v1/me/apps', ...sessionOrKey, async (req, res) => {
    const rows = await store.myApps(callerOf(req).userId);
    res.json({ apps: rows.map(toMyApp) });
  });

  app.get('/api/v1/me/installed', ...sessionOrKey, async (req, res) => {
    res.json({ apps: await store.installedApps(callerOf(req).userId) });
  });

  app.put('/api/v1/me/installed/:slug', ...sessionOnly, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    if (!(await store.install(callerOf(req).userId, slug)))
      throw notFound(ERROR_MESSAGES.appNotFound);
    // Downloads order the listing.
    await deps.listing.invalidate({ totals: false });
    res.json({ installed: true });
  });

  app.delete('/api/v1/me/installed/:slug', ...sessionOnly, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    await store.uninstall(callerOf(req).userId, slug);
    res.status(204).end();
  });
}
