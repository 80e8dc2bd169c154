// HTTP of the developer dashboard's API keys (docs/decisions/003-app-store-api-keys.md): session only, author only.
import type { Express, Request, RequestHandler } from 'express';
import { ApiKeyParams, AppSlugParams, ERROR_MESSAGES } from '@svc/types';
import { newId, forbidden, notFound } from '@svc/service-kit';
import { callerOf, type AuthRequirement } from './authentication.js';
import { generateApiKey } from '../domain/api-key.js';
import type { RateLimits } from './rate-limits.js';
import type { AppRow, AppStore } from '../store/store.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function keysRoutes(
  app: Express,
  deps: {
    store: AppStore;
    limits: RateLimits;
    authenticate: (requirement: AuthRequirement) => RequestHandler;
    now?: () => Date;
  },
): void {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());
  const guard = [deps.authenticate('session'), deps.limits.authenticated.middleware];

  /** The app of the path, if the caller is its author (blocked apps included, withdrawn not). */
  async function ownApp(req: Request, slug: string): Promise<AppRow> {
    const caller = callerOf(req);
    const found = await store.findBySlug(slug);
    const isAuthor = found?.authorId === caller.userId;
    if (!found || found.status === 'withdrawn' || (found.status === 'blocked' && !isAuthor))
      throw notFound(ERROR_MESSAGES.appNotFound);
    if (!isAuthor) throw forbidden('Only the author of the app can manage its API keys');
    return found;
  }

  app.post('/api/v1/apps/:slug/keys', ...guard, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const target = await ownApp(req, slug);
    const caller = callerOf(req);
    // The key will authenticate as this developer: keep their identity for GET /me.
    await store.upsertDeveloper({
      userId: caller.userId,
      email: caller.email,
      username: caller.username,
    });
    const fresh = generateApiKey();
    const row = await store.createKey({
      id: newId(),
      appId: target.id,
      authorId: caller.userId,
      keyHash: fresh.hash,
      prefix: fresh.prefix,
    });
    res.status(201).json({
      id: row.id,
      key: fresh.key,
      prefix: row.prefix,
      created_at: row.createdAt.toISOString(),
    });
  });

  app.get('/api/v1/apps/:slug/keys', ...guard, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const target = await ownApp(req, slug);
    const keys = await store.listKeys(target.id);
    res.json({
      keys: keys.map((k) => ({
        id: k.id,
        prefix: k.prefix,
        created_at: k.createdAt.toISOString(),
        last_used_at: iso(k.lastUsedAt),
        revoked_at: iso(k.revokedAt),
      })),
    });
  });

  app.delete('/api/v1/apps/:slug/keys/:id', ...guard, async (req, res) => {
    const params = ApiKeyParams.safeParse(req.params);
    if (!params.success) throw notFound('API key not found');
    const target = await ownApp(req, params.data.slug);
    if (!(await store.revokeKey(target.id, params.data.id, now())))
      throw notFound('API key not found');
    res.status(204).end();
  });
}
