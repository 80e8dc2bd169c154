// HTTP of /api/v1/me*: the caller, their apps, their installed apps.
import type { Express, RequestHandler } from 'express';
import {
  AppSlugParams,
  AppealBody,
  AuthorAuditQuery,
  ERROR_MESSAGES,
  type AppealResponse,
  type AuthorAuditPageResponse,
} from '@svc/types';
import { auditEntryView, badRequest, conflict, notFound } from '@svc/service-kit';
import { actorForAuthor } from '../domain/audit-entry.js';
import type { AuthorStore } from '../store/author-store.js';
import { callerOf, type AuthRequirement } from './authentication.js';
import { toMyApp } from '../domain/app-record.js';
import { avatarUrl } from '../domain/avatar.js';
import type { RateLimits } from './rate-limits.js';
import type { Listing } from '../store/listing.js';
import type { AppStoreReads } from '../store/read-routing.js';
import type { AppStore } from '../store/store.js';

export function meRoutes(
  app: Express,
  deps: {
    store: AppStore;
    authors: AuthorStore;
    listing: Listing;
    /** Where the caller's reads go (store/read-routing.ts); `wrote` after their writes. */
    reads: AppStoreReads;
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
    const userId = callerOf(req).userId;
    const apps = await deps.reads.read('myApps', userId, async (c) => {
      const rows = await c.store.myApps(userId);
      const blocks = await c.authors.blocks(rows);
      return rows.map((row) => toMyApp(row, blocks.get(row.id)));
    });
    res.json({ apps });
  });

  // The author's appeal of their blocked app's current block (once per block).
  app.post('/api/v1/me/apps/:slug/appeal', ...sessionOnly, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const { text } = AppealBody.parse(req.body ?? {});
    const result = await deps.authors.appeal(slug, callerOf(req).userId, text);
    if (result.kind === 'not-found') throw notFound(ERROR_MESSAGES.appNotFound);
    if (result.kind === 'conflict') throw conflict(result.message);
    await deps.reads.wrote(callerOf(req).userId);
    const body: AppealResponse = {
      slug: result.slug,
      appeal: { text: result.text, created_at: result.createdAt.toISOString() },
    };
    res.status(201).json(body);
  });

  // The audit entries about the caller's own app; actors as roles (never a moderator's id).
  app.get('/api/v1/me/apps/:slug/audit', ...sessionOrKey, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const query = AuthorAuditQuery.parse(req.query);
    const userId = callerOf(req).userId;
    let found;
    try {
      found = await deps.reads.read('myAppAudit', userId, (c) => c.authors.audit(slug, userId, query));
    } catch (err) {
      if (err instanceof RangeError) throw badRequest('Invalid cursor');
      throw err;
    }
    if (!found) throw notFound(ERROR_MESSAGES.appNotFound);
    const body: AuthorAuditPageResponse = {
      entries: found.page.items.map((e) =>
        auditEntryView(e, actorForAuthor(e.actor, found.authorId)),
      ),
      next_cursor: found.page.nextCursor,
    };
    res.json(body);
  });

  app.get('/api/v1/me/installed', ...sessionOrKey, async (req, res) => {
    const userId = callerOf(req).userId;
    res.json({ apps: await deps.reads.read('installed', userId, (c) => c.store.installedApps(userId)) });
  });

  app.put('/api/v1/me/installed/:slug', ...sessionOnly, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    if (!(await store.install(callerOf(req).userId, slug)))
      throw notFound(ERROR_MESSAGES.appNotFound);
    // Downloads order the listing.
    await deps.listing.invalidate({ totals: false, caller: callerOf(req).userId });
    res.json({ installed: true });
  });

  app.delete('/api/v1/me/installed/:slug', ...sessionOnly, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    await store.uninstall(callerOf(req).userId, slug);
    await deps.reads.wrote(callerOf(req).userId);
    res.status(204).end();
  });
}
