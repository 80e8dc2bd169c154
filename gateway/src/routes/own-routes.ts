// What the gateway answers itself (express apps). Public: liveness (/healthz), the
// discovery documents, and the JSON 404/405/500 for every path the routing table does not
// forward — /readyz and /metrics included, which are 404 there. Private (the ops listener
// on OPS_PORT, docs/decisions/013-operations-port.md): /healthz, the detailed /readyz fan-out and /metrics.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { DISCOVERY_PATHS, type DiscoveryDocument } from '@svc/discovery';
import type { Logger } from 'pino';
import { performance } from 'node:perf_hooks';
import { UPSTREAM_NAMES, type TrustProxy, type UpstreamName } from '../config.js';
import { createDiscoveryRoutes } from './discovery-routes.js';
import { applySecurityHeaders } from '../edge/security-headers.js';
import type { Metrics } from '../ops/metrics.js';

export type Readiness = Record<UpstreamName, 'ready' | 'unavailable'>;

export interface OwnRoutesDeps {
  trustProxy: TrustProxy;
  metrics: Metrics;
  logger: Logger;
  /** Built once at start (see app.ts). */
  discovery: readonly DiscoveryDocument[];
}

export interface OpsRoutesDeps {
  /** Probes one upstream's public /readyz, 200/503 only (bounded by its own timeout). */
  probe: (name: UpstreamName) => Promise<boolean>;
  metrics: Metrics;
}

export function createOwnRoutes(deps: OwnRoutesDeps): express.Express {
  const { metrics, logger } = deps;
  const ownPaths: readonly string[] = ['/healthz', ...DISCOVERY_PATHS];
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Like the routing table: exact, case-sensitive paths (`/OPENAPI.JSON`, `/healthz/` are 404).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('trust proxy', deps.trustProxy);

  // One metrics sample and (at debug) one log line per request.
  const observe: RequestHandler = (req, res, next) => {
    const startedAt = performance.now();
    res.once('finish', () => {
      const route = ownPaths.includes(req.path) ? req.path : 'other';
      metrics.record(route, res.statusCode, startedAt);
      logger.debug(
        // No client address in logs (docs/decisions/013-operations-port.md).
        { reqId: res.getHeader('x-request-id'), method: req.method, path: req.path, status: res.statusCode },
        'own route',
      );
    });
    next();
  };
  app.use(observe);
  app.use(applySecurityHeaders);

  app.get('/healthz', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'ok' });
  });

  app.use(createDiscoveryRoutes(deps.discovery));

  app.all([...ownPaths], (_req, res) => {
    res.set('allow', 'GET, HEAD').status(405).json({ error: 'Method not allowed' });
  });

  // /api/ws only speaks WebSocket (upgrades never reach express).
  app.all('/api/ws', (_req, res) => {
    res.set('upgrade', 'websocket').status(426).json({ error: 'Upgrade required' });
  });

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const status = typeof err?.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) logger.error({ reqId: res.getHeader('x-request-id'), path: req.path, err }, 'gateway route failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).json({ error: status === 500 ? 'Internal server error' : 'Bad request' });
  };
  app.use(onError);

  return app;
}

/**
 * The ops listener's app: reachable only on OPS_PORT, which no public route exposes.
 * /readyz asks every upstream's public /readyz (200/503, no detail there), so the gateway
 * needs no access to the services' ops ports; it names the upstreams that are not ready.
 */
export function createOpsRoutes(deps: OpsRoutesDeps): express.Express {
  const { metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  app.get('/healthz', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(UPSTREAM_NAMES.map((name) => deps.probe(name)));
    const services = Object.fromEntries(
      UPSTREAM_NAMES.map((name, i) => [name, results[i] ? 'ready' : 'unavailable']),
    ) as Readiness;
    const ready = results.every(Boolean);
    res
      .status(ready ? 200 : 503)
      .set('cache-control', 'no-store')
      .json({ status: ready ? 'ready' : 'unavailable', services });
  });

  app.get('/metrics', async (_req, res) => {
    res.set('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.all(['/healthz', '/readyz', '/metrics'], (_req, res) => {
    res.set('allow', 'GET, HEAD').status(405).json({ error: 'Method not allowed' });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
  return app;
}
