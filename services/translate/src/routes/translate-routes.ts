// HTTP of POST /api/translate: rate limit, parse with the shared schema, answer.
import type { Express } from 'express';
import { TranslateBody } from '@svc/types';
import { byIp, limitFor, rateLimit, type Redis } from '@svc/service-kit';
import type { TranslateText } from '../actions/translate.js';

// Registered on the app itself (not a Router) so the kit's 405 handler sees the path.
export function translateRoutes(
  app: Express,
  deps: {
    translateText: TranslateText;
    redis: Redis;
    redisPrefix: string;
    /** Replaces the catalogue's limit (20 per minute per IP); only a benchmark sets it. */
    perMinute?: number;
  },
): void {
  // Counted before validation: malformed requests cost the caller too.
  const catalogue = limitFor('translateText');
  const limit = rateLimit({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    name: 'translate',
    points: deps.perMinute ?? catalogue.points,
    durationSeconds: catalogue.durationSeconds,
    key: byIp,
  });
  app.post('/api/translate', limit.middleware, async (req, res) => {
    const body = TranslateBody.parse(req.body);
    res.json(await deps.translateText(body));
  });
}
