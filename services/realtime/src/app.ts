// The realtime express app, built from injected dependencies (tests pass their own).
// The WebSocket at /api/ws (Redis pub/sub fan-out, pings, entrance messages) comes with
// issue #5: until then only the kit's /healthz, /readyz and /metrics answer, and every
// other request (an upgrade included) gets a JSON 404.
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
    readiness: { redis: redisCheck(deps.redis) },
    routes: () => {},
  });
}
