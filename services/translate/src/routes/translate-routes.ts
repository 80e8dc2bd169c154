// HTTP of POST /api/translate: rate limit, parse with the shared schema, answer.
import type { Express } from 'express';
import { TranslateBody } from '@svc/types';
import { byIp, rateLimit, type Redis } from '@svc/service-kit';
import type { TranslateText } from '../translate.js';

// Registered on the app itself (not a Router) so the kit's 405 handler sees the path.
export function translateRoutes(
  app: Express,
  deps: {
    translateText: TranslateText;
    redis: Redis;
    redisPrefix: string;
    /** 20 per minute per IP (site-sharing-api.md); only a benchmark raises it. */
    perMinute: number;
  },
): void {
  // Counted before validation: malformed requests cost the caller too.
  const limit = rateLimit({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    name: 'translate',
    points: deps.perMinute,
    durationSeconds: 60,
    key: byIp,
  });
  app.post('/api/translate', limit.middleware, async (req, res) => {
    const body = TranslateBody.parse(req.body);
    res.json(await deps.translateText(body));
  });
}
