// The express app every service starts from: request ids, JSON logs, metrics, body
// limits, health endpoints, and one error shape `{ "error": ... }` for everything.
// /metrics and the detailed /readyz live on the private ops listener (ops.ts): the public
// app answers /healthz and a bare /readyz (200/503, no detail) only.
import express, { type Express, type ErrorRequestHandler, type RequestHandler } from 'express';
import { ZodError } from 'zod';
import { ENDPOINTS, ERROR_MESSAGES, MAX_JSON_BODY_BYTES, type ServiceName } from '@svc/types';
import { accessLog } from './access-log.js';
import { HttpError } from './errors.js';
import { isDependencyUnavailable } from '../ops/dependency-errors.js';
import { refuseInvalidText, refuseInvalidUtf8 } from './refuse-invalid-text.js';
import { runChecks, type ReadinessCheck } from '../ops/health.js';
import { attachOpsHandler, createOpsHandler } from '../ops/ops.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { requestIdFrom } from './request-id.js';
import { keepTraceContext, withServerSpan } from './server-spans.js';

export interface ServiceAppOptions {
  logger: Logger;
  metrics?: Metrics;
  readiness?: Record<string, ReadinessCheck>;
  /**
   * JSON body limit, bytes or '4kb': MAX_JSON_BODY_BYTES (64 KiB) unless a service needs
   * less (docs/decisions/001-errors-limits-and-headers.md).
   */
  bodyLimit?: number | string;
  /**
   * express trust-proxy setting: who may tell us the client IP (the gateway). Default
   * `loopback` (TRUSTED_PROXIES): never every private address, which any pod could forge.
   */
  trustProxy?: string | boolean | number;
  /** Registers the service's routes. */
  routes: (app: Express) => void;
  /**
   * The service in the endpoint catalogue (`ENDPOINTS` of @svc/types). Its catalogue paths
   * requested with a method the catalogue does not list answer 405 + `Allow`, wherever the
   * routes are registered (on the app or on a mounted Router).
   */
  service?: ServiceName;
  /**
   * 400 before the routes for text no store can hold (default true). Off only for the MCP
   * server, which answers it as the tool's error from the service it hands the text to.
   */
  refuseInvalidText?: boolean;
}

export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.set('etag', false);
  // No conditional answers unless a route makes its own: without this, `If-None-Match: *`
  // turned any JSON GET into a 304 (Express's freshness check counts `*` as a match). A
  // documented extension point (expressjs.com, "Overriding the Express API").
  Object.defineProperty(app.request, 'fresh', { configurable: true, enumerable: true, get: () => false });

  // Tracing on: the request's server span first, in the same middleware (server-spans.ts).
  app.use(
    withServerSpan((req, res, next) => {
      const id = requestIdFrom(req.headers['x-request-id']);
      req.headers['x-request-id'] = id;
      res.setHeader('X-Request-Id', id);
      next();
    }),
  );
  app.use(accessLog(options.logger));
  if (options.metrics) app.use(options.metrics.middleware);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // For probes that only reach the public port: the verdict, never which check failed.
  app.get('/readyz', async (_req, res) => {
    const { ready } = await runChecks(options.readiness ?? {});
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  attachOpsHandler(
    app,
    createOpsHandler({ metrics: options.metrics, readiness: options.readiness }),
  );

  app.use(
    keepTraceContext(
      express.json({
        limit: options.bodyLimit ?? MAX_JSON_BODY_BYTES,
        strict: true,
        verify: refuseInvalidUtf8,
      }),
    ),
  );
  if (options.refuseInvalidText ?? true) app.use(refuseInvalidText);
  options.routes(app);
  app.use(methodNotAllowedOrNotFound(app, catalogueMethods(options.service)));
  app.use(errorHandler(options.logger));
  return app;
}

/**
 * The methods the catalogue lists for a path of `service`: a matcher per catalogue path
 * (`{param}` is one non-empty segment), or none without a service.
 */
export function catalogueMethods(service: ServiceName | undefined): (path: string) => Set<string> {
  const byPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const e of ENDPOINTS) {
    if (service === undefined || e.service !== service) continue;
    let entry = byPath.get(e.path);
    if (!entry) {
      const source = e.path
        .split(/\{[A-Za-z0-9_]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      entry = { pattern: new RegExp(`^${source}$`), methods: new Set() };
      byPath.set(e.path, entry);
    }
    entry.methods.add(e.method);
  }
  const entries = [...byPath.values()];
  return (path) => {
    const methods = new Set<string>();
    for (const { pattern, methods: listed } of entries)
      if (pattern.test(path)) for (const m of listed) methods.add(m);
    return methods;
  };
}

/**
 * 405 with `Allow` when the path exists under another method (a route on the app itself, or
 * a catalogue path of the service, however it is routed), else 404.
 */
function methodNotAllowedOrNotFound(
  app: Express,
  fromCatalogue: (path: string) => Set<string>,
): RequestHandler {
  return (req, res) => {
    const methods = fromCatalogue(req.path);
    const stack = (app as unknown as { router?: { stack: RouterLayer[] } }).router?.stack ?? [];
    for (const layer of stack) {
      if (!layer.route || !layer.match(req.path)) continue;
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') methods.add(method.toUpperCase());
      }
    }
    if (methods.has('GET')) methods.add('HEAD');
    if (methods.size > 0 && !methods.has(req.method)) {
      res.setHeader('Allow', [...methods].sort().join(', '));
      res.status(405).json({ error: ERROR_MESSAGES.methodNotAllowed });
      return;
    }
    res.status(404).json({ error: ERROR_MESSAGES.notFound });
  };
}

interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    // JSON leaves out `details` when it is undefined.
    const answer = (status: number, error: string, details?: unknown) =>
      res.status(status).json({ error, details });
    // body-parser errors carry a `type` and a client status.
    const { type, status } = err as { type?: string; status?: number };
    if (err instanceof HttpError) {
      res.set(err.headers);
      answer(err.status, err.message, err.details);
    } else if (err instanceof ZodError) {
      answer(400, 'Invalid request', err.issues);
    } else if (type === 'entity.too.large') {
      answer(413, ERROR_MESSAGES.payloadTooLarge);
    } else if (type === 'entity.parse.failed') {
      answer(400, ERROR_MESSAGES.invalidJson);
    } else if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
      // A body the parser cannot decode is, for this API, a body that is not JSON: 400 as
      // documented, with the reason (body-parser says 415).
      answer(400, ERROR_MESSAGES.invalidJson, (err as Error).message);
    } else if (typeof status === 'number' && status >= 400 && status < 500) {
      answer(status, (err as Error).message || 'Bad request');
    } else if (isDependencyUnavailable(err)) {
      logger.warn({ err, reqId: req.headers['x-request-id'] }, 'dependency unavailable');
      res.setHeader('Retry-After', '5');
      answer(503, ERROR_MESSAGES.serviceUnavailable);
    } else {
      logger.error({ err, reqId: req.headers['x-request-id'] }, 'unhandled error');
      answer(500, 'Internal server error');
    }
  };
}
