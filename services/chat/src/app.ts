// The chat express app, built from injected dependencies (tests pass their own).
// The /api/messages endpoints (and the internal entrance call) come with issue #5: until
// then only the kit's /healthz, /readyz and /metrics answer, and every other path is a
// JSON 404.
import type { Express } from 'express';
import {
  createServiceApp,
  postgresCheck,
  redisCheck,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/service-kit';
import type { PrismaClient } from './generated/prisma/client.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  db: PrismaClient;
  redis: Redis;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
}

export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    readiness: { postgres: postgresCheck(deps.db), redis: redisCheck(deps.redis) },
    routes: () => {},
  });
}
