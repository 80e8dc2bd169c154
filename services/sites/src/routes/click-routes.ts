// HTTP of POST /api/clicks/{id}: 30 per minute per IP, then one more click on the site.
import type { Express } from 'express';
import { byIp, limitFor, notFound, rateLimit, type Redis } from '@svc/service-kit';
import { SiteIdParams } from '@svc/types';
import type { SiteStore } from '../store/site-store.js';
import { SITE_NOT_FOUND } from './site-routes.js';

export function clickRoutes(
  app: Express,
  deps: { store: SiteStore; redis: Redis; redisPrefix: string },
): void {
  const limit = rateLimit({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    name: 'sites-click',
    ...limitFor('recordClick'),
    key: byIp,
  });
  app.post('/api/clicks/:id', limit.middleware, async (req, res) => {
    const { id } = SiteIdParams.parse(req.params);
    if (!(await deps.store.recordClick(id))) throw notFound(SITE_NOT_FOUND);
    res.json({ recorded: true });
  });
}
