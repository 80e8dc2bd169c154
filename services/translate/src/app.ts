// The translate express app, built from injected dependencies (tests pass their own).
// Redis holds the rate-limit counters and the 24 h translation cache, but translation
// works without it (the cache is skipped, the kit's in-memory insurance limiter counts),
// so readiness does not depend on it: a Redis outage must not take every translate pod out
// of service. The outage is visible in the logs (one warning per outage) instead.
import type { Express } from 'express';
import { createServiceApp, type Logger, type Metrics, type Redis } from '@svc/service-kit';
import { createTranslateText } from './actions/translate.js';
import type { Translator } from './clients/ai-translator.js';
import { translateRoutes } from './routes/translate-routes.js';
import { createTranslationCache } from './store/translation-cache.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  redis: Redis;
  /** REDIS_PREFIX: prefix of the cache and rate-limit keys. */
  redisPrefix?: string;
  /** Undefined when no AI provider is configured: translations needing it answer 503. */
  translator?: Translator;
  /** POST /api/translate per IP per minute (default 20). */
  rateLimitPerMinute?: number;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
}

export function buildApp(deps: AppDeps): Express {
  const redisPrefix = deps.redisPrefix ?? '';
  const cache = createTranslationCache({
    redis: deps.redis,
    prefix: redisPrefix,
    logger: deps.logger,
  });
  const translateText = createTranslateText({
    translator: deps.translator,
    cache,
    logger: deps.logger,
  });
  return createServiceApp({
    service: 'translate',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    // Translation bodies are at most 2000 characters (up to 4 bytes each in UTF-8).
    bodyLimit: '16kb',
    readiness: {},
    routes: (app) => {
      translateRoutes(app, {
        translateText,
        redis: deps.redis,
        redisPrefix,
        perMinute: deps.rateLimitPerMinute,
      });
    },
  });
}
