// HTTP of /api/daily-bg and /api/daily-bg/image.
import type { Express } from 'express';
import { DAILY_BG_CACHE_SECONDS } from '@svc/types';
import type { DailyBgSource } from '../clients/daily-bg-source.js';

export function dailyBgRoutes(app: Express, source: DailyBgSource): void {
  app.get('/api/daily-bg', async (_req, res) => {
    const bg = await source.current();
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json(bg);
  });
  app.get('/api/daily-bg/image', async (_req, res) => {
    const image = await source.image();
    res.setHeader('Cache-Control', `public, max-age=${DAILY_BG_CACHE_SECONDS}`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type(image.contentType).send(image.body);
  });
}
