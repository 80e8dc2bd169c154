// The translate express app, built from injected dependencies (tests pass their own).
// POST /api/translate comes with issue #5: until then only the kit's /healthz, /readyz
// and /metrics answer, and every other path is a JSON 404. Redis holds the 24 h
// translation cache (and the rate-limit counters), so readiness checks Redis.
import type { Express } from 'express';
import { createServiceApp, redisCheck, type Logger, type Metrics, type Redis } from '@svc/service-kit';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  redis: Redis;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
}

export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    // Translation bodies are at most 2000 characters (up to 4 bytes each in UTF-8).
    bodyLimit: '16kb',
    readiness: { redis: redisCheck(deps.redis) },
    routes: () => {},
  });
}
