// HTTP of /api/moderation/sites/*: a moderator hides a site from every public read, or
// shows it again, each with an entry in the sites' audit log written in the same
// transaction (read at GET /api/moderation/sites/audit, docs/decisions/024-audit-log-per-service.md). Moderators only (401 without a session, 403 `Moderators only`). A hide or
// restore clears this process's listing and sitemap caches; other processes' caches expire
// within their TTL (SITES_LIST_CACHE_MS, SITES_COUNT_CACHE_MS, the sitemap's 10 minutes).
import type { Express } from 'express';
import { auditPageFor, HttpError, notFound, requireModerator } from '@svc/service-kit';
import { HideSiteBody, SiteAuditQuery, SiteIdParams } from '@svc/types';
import type { SiteStore } from '../store/site-store.js';
import { SITE_NOT_FOUND } from './site-routes.js';

export const SITE_ALREADY_HIDDEN = 'Site already hidden';
export const SITE_NOT_HIDDEN = 'Site is not hidden';

export function moderationRoutes(
  app: Express,
  deps: { store: SiteStore; invalidateCaches: (moderatorId: string) => Promise<void> },
): void {
  const { store } = deps;

  /** An id the schema refuses names no site (the catalogue's rule for path parameters). */
  const siteId = (params: unknown): string => {
    const parsed = SiteIdParams.safeParse(params);
    if (!parsed.success) throw notFound(SITE_NOT_FOUND);
    return parsed.data.id;
  };

  // The audit log of hides and restores (docs/decisions/024-audit-log-per-service.md), before the `:id` routes.
  app.get('/api/moderation/sites/audit', requireModerator, async (req, res) => {
    res.json(await auditPageFor(SiteAuditQuery, req.query, store.audit));
  });

  app.post('/api/moderation/sites/:id/hide', requireModerator, async (req, res) => {
    const id = siteId(req.params);
    const { reason } = HideSiteBody.parse(req.body);
    const outcome = await store.hide(id, reason, req.caller!.userId);
    if (outcome.kind === 'not-found') throw notFound(SITE_NOT_FOUND);
    if (outcome.kind === 'already-hidden') throw new HttpError(409, SITE_ALREADY_HIDDEN);
    await deps.invalidateCaches(req.caller!.userId);
    res.json({
      site_id: id,
      hidden: true,
      hidden_at: outcome.hiddenAt.toISOString(),
      hidden_reason: outcome.reason,
    });
  });

  app.post('/api/moderation/sites/:id/restore', requireModerator, async (req, res) => {
    const id = siteId(req.params);
    const outcome = await store.restore(id, req.caller!.userId);
    if (outcome.kind === 'not-found') throw notFound(SITE_NOT_FOUND);
    if (outcome.kind === 'not-hidden') throw new HttpError(409, SITE_NOT_HIDDEN);
    await deps.invalidateCaches(req.caller!.userId);
    res.json({ site_id: id, hidden: false });
  });
}
