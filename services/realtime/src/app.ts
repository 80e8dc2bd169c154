// The realtime express app: health, readiness, metrics, and the plain-HTTP answer of
// /api/ws (426: only a WebSocket handshake is served there; sockets/ws-server.ts takes
// upgrades).
import type { Express } from 'express';
import {
  createServiceApp,
  redisCheck,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/service-kit';
import { WS_PATH } from '@svc/types';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  redis: Redis;
  /** The pub/sub client: without it no event reaches anyone. */
  subscriber?: Redis;
  /** False until the events stream loop knows where the stream ends (WS_RESUME). */
  following?: () => boolean;
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
}

export function buildApp(deps: AppDeps): Express {
  const subscriber = deps.subscriber;
  return createServiceApp({
    service: 'realtime',
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    readiness: {
      redis: redisCheck(deps.redis),
      ...(subscriber && {
        subscriber: async () => {
          if (subscriber.status !== 'ready') throw new Error('subscriber not connected');
          if (deps.following && !deps.following())
            throw new Error('events stream not followed yet');
        },
      }),
    },
    routes: (app) => {
      app.get(WS_PATH, (_req, res) => {
        res.setHeader('Upgrade', 'websocket');
        res.setHeader('Connection', 'Upgrade');
        res.status(426).json({ error: 'Upgrade required' });
      });
    },
  });
}
