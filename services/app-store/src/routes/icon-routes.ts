// HTTP of GET /api/v1/apps/{slug}/icon: an approved app's SVG icon as an image, for <img src>.
// The SVG was checked when stored (no scripts, handlers or external references); the CSP
// of this answer still forbids scripts and every load should a page open it directly, and
// nosniff keeps it an SVG. Conditional requests (If-None-Match) answer 304.
import type { Express } from 'express';
import { APP_HAS_NO_ICON, APP_ICON_HEADERS, AppSlugParams, ERROR_MESSAGES } from '@svc/types';
import { notFound } from '@svc/service-kit';
import { iconEtag, ifNoneMatchHits } from '../domain/icon-etag.js';
import type { RateLimits } from './rate-limits.js';
import type { AppStoreReads } from '../store/read-routing.js';

export function iconRoutes(app: Express, deps: { reads: AppStoreReads; limits: RateLimits }): void {
  app.get('/api/v1/apps/:slug/icon', deps.limits.public.middleware, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const found = await deps.reads.read('appIcon', undefined, (c) => c.store.findApprovedIcon(slug), {
      confirmOnPrimary: (icon) => icon === null,
    });
    if (!found) throw notFound(ERROR_MESSAGES.appNotFound);
    if (found.iconSvg === null) throw notFound(APP_HAS_NO_ICON);
    const etag = iconEtag(found.iconSvg);
    res.set(APP_ICON_HEADERS).set('ETag', etag);
    if (ifNoneMatchHits(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return;
    }
    res.send(Buffer.from(found.iconSvg, 'utf8'));
  });
}
