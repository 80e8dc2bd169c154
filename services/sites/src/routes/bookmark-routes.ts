// HTTP of /api/bookmarks (session required): list, add (idempotent), remove.
import type { Express } from 'express';
import { limitFor, notFound, rateLimit, requireSession, type Redis } from '@svc/service-kit';
import { BookmarkParams, CreateBookmarkBody } from '@svc/types';
import type { SitesReads } from '../store/read-routing.js';
import type { SiteStore } from '../store/site-store.js';
import { SITE_NOT_FOUND } from './site-routes.js';

export function bookmarkRoutes(
  app: Express,
  deps: { store: SiteStore; reads: SitesReads; redis: Redis; redisPrefix: string },
): void {
  const { store } = deps;
  // Not in the documents: writes are bounded per user like the app-store's session limits.
  const writeLimit = rateLimit({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    name: 'sites-bookmark-write',
    // One bucket for both writes (the catalogue gives them the same limit).
    ...limitFor(['createBookmark', 'deleteBookmark']),
    key: (req) => req.caller?.userId,
  });
  app.get('/api/bookmarks', requireSession, async (req, res) => {
    const userId = req.caller!.userId;
    const rows = await deps.reads.read('bookmarks', userId, (c) => c.store.listBookmarks(userId));
    res.json({
      bookmarks: rows.map((b) => ({ site_id: b.siteId, created_at: b.createdAt.toISOString() })),
    });
  });

  app.post('/api/bookmarks', requireSession, writeLimit.middleware, async (req, res) => {
    const { site_id } = CreateBookmarkBody.parse(req.body);
    const row = await store.addBookmark(req.caller!.userId, site_id);
    if (!row) throw notFound(SITE_NOT_FOUND);
    await deps.reads.wrote(req.caller!.userId);
    res.status(row.created ? 201 : 200).json({
      bookmark: { site_id: row.siteId, created_at: row.createdAt.toISOString() },
    });
  });

  app.delete('/api/bookmarks/:site_id', requireSession, writeLimit.middleware, async (req, res) => {
    const { site_id } = BookmarkParams.parse(req.params);
    if (!(await store.removeBookmark(req.caller!.userId, site_id)))
      throw notFound('Bookmark not found');
    await deps.reads.wrote(req.caller!.userId);
    res.status(204).end();
  });
}
