// The private operations listener (docs/decisions/013-operations-port.md): /metrics and the detailed
// /readyz (which check failed) are served on OPS_PORT, a port no public route exposes, so
// nobody outside the cluster reads the process's internals. The public port keeps /healthz
// and a bare /readyz (status only). A plain node:http handler: three paths, no middleware.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ConfigError } from './config.js';
import { runChecks, type ReadinessCheck } from './health.js';
import type { Metrics } from './metrics.js';

export interface OpsOptions {
  metrics?: Pick<Metrics, 'registry'>;
  readiness?: Record<string, ReadinessCheck>;
}

/** OPS_PORT when set, else PORT + 1000 (PORT 0, i.e. any free port, gives 0 too). */
export function defaultOpsPort(port: number, opsPort?: number): number {
  const ops = opsPort ?? (port === 0 ? 0 : port + 1000);
  if (ops > 65535) throw new ConfigError(['OPS_PORT is missing: PORT + 1000 is past 65535']);
  if (ops !== 0 && ops === port)
    throw new ConfigError(['OPS_PORT is invalid: must differ from PORT']);
  return ops;
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  head: boolean,
): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(head ? undefined : body);
}

const json = (res: ServerResponse, status: number, value: unknown, head: boolean) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), head);

export function createOpsHandler(options: OpsOptions): RequestListener {
  const checks = options.readiness ?? {};
  return (req: IncomingMessage, res: ServerResponse) => {
    const q = (req.url ?? '/').indexOf('?');
    const path = q === -1 ? (req.url ?? '/') : (req.url ?? '/').slice(0, q);
    const known =
      path === '/healthz' || path === '/readyz' || (path === '/metrics' && options.metrics);
    if (!known) return json(res, 404, { error: 'Not found' }, req.method === 'HEAD');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: 'Method not allowed' }, false);
    }
    const head = req.method === 'HEAD';
    if (path === '/healthz') return json(res, 200, { status: 'ok' }, head);
    if (path === '/readyz') {
      // Degraded is still ready (200): the process serves, with less (health.ts).
      void runChecks(checks).then(({ ready, checks: results, degraded }) =>
        json(
          res,
          ready ? 200 : 503,
          {
            status: !ready ? 'unavailable' : degraded ? 'degraded' : 'ready',
            checks: results,
            ...(degraded ? { degraded } : {}),
          },
          head,
        ),
      );
      return;
    }
    const registry = options.metrics!.registry;
    void registry.metrics().then(
      (text) => send(res, 200, registry.contentType, text, head),
      () => json(res, 500, { error: 'Internal server error' }, head),
    );
  };
}

const opsHandlers = new WeakMap<object, RequestListener>();

/** Remembers the ops handler of a public app (createServiceApp does it). */
export function attachOpsHandler(app: object, handler: RequestListener): void {
  opsHandlers.set(app, handler);
}

/** The ops handler createServiceApp built for `app` (its metrics and readiness checks). */
export function opsHandlerOf(app: object): RequestListener | undefined {
  return opsHandlers.get(app);
}
