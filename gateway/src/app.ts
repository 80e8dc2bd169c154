// Wires the gateway: a bare Node HTTP server whose request handler forwards routing-table
// paths straight to the proxy engine (no express, no per-request logging on that path) and
// hands everything else to the express app of own routes; upgrades go to the WS proxy.
// The server also bounds what a client may hold: time for headers and body (408), open
// connections per address (429).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { buildDiscoveryDocuments, type DiscoveryDocument } from '@svc/discovery';
import { createLogger as createServiceLogger, recordedUrl, type Logger } from '@svc/service-kit';
import { startServerSpan, tracingEnabled } from '@svc/tracing';
import { clientInfo, compileTrust } from './edge/client-ip.js';
import type { GatewayConfig, UpstreamName } from './config.js';
import { CAP_RETRY_AFTER_S, createConnectionCap } from './edge/connection-cap.js';
import { createCors, isApiPath, isPreflight } from './edge/cors.js';
import { jsonError, rawJsonError } from './proxy/headers.js';
import { createHttpProxy } from './proxy/http-proxy.js';
import { createMetrics } from './ops/metrics.js';
import { createOpsRoutes, createOwnRoutes } from './routes/own-routes.js';
import { requestIdFrom } from './edge/request-id.js';
import { findRoute, HTTP_ROUTES, pathOf, WS_ROUTES } from './proxy/routing-table.js';
import { SECURITY_HEADERS } from './edge/security-headers.js';
import { createWsProxy } from './proxy/ws-proxy.js';

export interface GatewayOptions {
  logger?: Logger;
  /** Node process metrics (CPU, memory, event loop) on /metrics. Default true. */
  defaultMetrics?: boolean;
  /** Renders the discovery documents (tests replace it). Default: @svc/discovery. */
  buildDiscovery?: typeof buildDiscoveryDocuments;
}

export interface Gateway {
  server: http.Server;
  /** The private ops listener (OPS_PORT): /healthz, the detailed /readyz, /metrics. */
  ops: http.Server;
  /** Stops accepting, lets in-flight requests finish (bounded), closes tunnels and pools. */
  close(): Promise<void>;
}

/**
 * Largest request head (request line and headers) the gateway takes: Node's default limit
 * (16 KiB, which every service and web keep) less room for the headers the gateway adds
 * upstream (request id, X-Forwarded-*, traceparent: a few hundred bytes), so whatever it
 * forwards fits. A larger head gets 431 JSON here; without the margin, a head just under
 * 16 KiB passed the gateway and got a service's bare, bodiless 431.
 */
export const MAX_REQUEST_HEAD_BYTES = 15 * 1024;

/** Keep idle client connections longer than the usual load-balancer idle timeout (60 s). */
const CLIENT_KEEP_ALIVE_MS = 65_000;

/**
 * How often Node looks for requests past their headers/request deadline: a tenth of the
 * shorter timeout, at most 1 s (Node's default, 30 s, would let a 10 s timeout run to 40 s).
 */
function timeoutCheckIntervalMs(config: Pick<GatewayConfig, 'headersTimeoutMs' | 'bodyTimeoutMs'>): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.bodyTimeoutMs) / 10)));
}

const TOO_MANY = { status: 429, message: 'Too many requests', extra: ['retry-after', String(CAP_RETRY_AFTER_S)] };

export function createLogger(level: GatewayConfig['logLevel']): Logger {
  return createServiceLogger('gateway', level);
}

export function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Gateway {
  const logger = options.logger ?? createLogger(config.logLevel);
  const trust = compileTrust(config.trustProxy);
  const metrics = createMetrics({ defaultMetrics: options.defaultMetrics ?? true });
  let closing = false;

  const proxy = createHttpProxy({
    upstreams: config.upstreams,
    timeoutMs: config.upstreamTimeoutMs,
    body: { maxBytes: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs },
    logger,
    metrics,
    isClosing: () => closing,
  });
  const ws = createWsProxy({
    routes: WS_ROUTES,
    upstreams: config.upstreams,
    trust,
    timeoutMs: config.upstreamTimeoutMs,
    logger,
    metrics,
  });
  // Rendered once here (a fraction of a second), so every request is served from memory.
  // A failure must not take the whole origin down: those paths then answer 500 JSON.
  let discovery: DiscoveryDocument[] = [];
  try {
    discovery = (options.buildDiscovery ?? buildDiscoveryDocuments)({ baseUrl: config.publicBaseUrl });
  } catch (err) {
    logger.error({ err }, 'discovery documents could not be generated; they answer 500');
  }
  const app = createOwnRoutes({ trustProxy: config.trustProxy, metrics, logger, discovery });
  const ops = http.createServer(
    createOpsRoutes({
      probe: (name: UpstreamName) => proxy.probe(name, '/readyz', config.readyTimeoutMs),
      metrics,
    }),
  );

  const cap = createConnectionCap(config.maxConnectionsPerIp, trust);
  const cors = createCors(config.corsOrigins);
  const tracing = tracingEnabled();

  /**
   * A CORS preflight on /api, answered here without calling a service: 204 with the allow
   * headers for a listed origin, 403 JSON (no CORS headers) for any other, or when
   * CORS_ORIGINS is empty.
   */
  function answerPreflight(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestId: string,
    routePath: string,
    startedAt: number,
  ): void {
    const allow = cors?.preflightHeaders(req.headers.origin);
    if (closing) res.shouldKeepAlive = false;
    let status: number;
    if (allow === undefined) {
      status = 403;
      const answer = jsonError(status, 'Origin not allowed', requestId);
      res.writeHead(status, answer.headers);
      res.end(answer.body);
    } else {
      status = 204;
      res.writeHead(status, ['x-request-id', requestId, ...allow, ...SECURITY_HEADERS]);
      res.end();
    }
    metrics.record(routePath, status, startedAt);
  }

  const server = http.createServer(
    {
      // Node counts both from a request's first byte (a new connection's from its opening),
      // never across an idle keep-alive wait (keepAliveTimeout), and reports a miss as the
      // clientError ERR_HTTP_REQUEST_TIMEOUT (answered below). requestTimeout is the whole
      // request: a backstop for bodies nobody reads (own routes); proxied bodies have their
      // own, earlier timer (proxy/request-body.ts).
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.headersTimeoutMs + config.bodyTimeoutMs + 1_000,
      connectionsCheckingInterval: timeoutCheckIntervalMs(config),
      maxHeaderSize: MAX_REQUEST_HEAD_BYTES,
    },
    (req, res) => {
      const startedAt = performance.now();
      const requestId = requestIdFrom(req.headers['x-request-id']);
      const url = req.url as string;
      const route = findRoute(HTTP_ROUTES, url);
      // Tracing on: this request's server span (ended by 'close' whatever the answer was),
      // the parent of the upstream's: its traceparent replaces the caller's.
      const traceparent = tracing
        ? startServerSpan(req, res, recordedUrl(pathOf(url)), route?.path)?.traceparent
        : undefined;
      // /api only: the CORS headers of this answer, and preflights answered here. A page
      // (web) answer never gets either, so a request that needs neither pays one compare.
      let extra: readonly string[] | undefined;
      let preflight = false;
      if ((cors !== undefined || req.method === 'OPTIONS') && route?.upstream !== 'web' && isApiPath(pathOf(url))) {
        if (cors !== undefined) extra = cors.answerHeaders(req.headers.origin);
        preflight = isPreflight(req.method, req.headers);
      }
      if (cap !== undefined && cap.refused(req.socket)) {
        const answer = jsonError(TOO_MANY.status, TOO_MANY.message, requestId, extra);
        res.shouldKeepAlive = false;
        res.writeHead(TOO_MANY.status, [...answer.headers, ...TOO_MANY.extra]);
        res.end(answer.body);
        metrics.record(route?.path ?? 'other', TOO_MANY.status, startedAt);
        return;
      }
      if (preflight) {
        answerPreflight(req, res, requestId, route?.path ?? 'other', startedAt);
        return;
      }
      if (route !== undefined) {
        proxy.forward(req, res, route, requestId, clientInfo(req, trust), startedAt, extra, traceparent);
        return;
      }
      req.headers['x-request-id'] = requestId;
      res.setHeader('x-request-id', requestId);
      if (extra !== undefined) for (let i = 0; i < extra.length; i += 2) res.appendHeader(extra[i] as string, extra[i + 1] as string);
      if (closing) res.shouldKeepAlive = false;
      app(req, res);
    },
  );
  server.keepAliveTimeout = CLIENT_KEEP_ALIVE_MS;
  if (cap !== undefined) server.on('connection', cap.onConnection);
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (cap !== undefined && cap.refused(socket)) {
      const requestId = requestIdFrom(req.headers['x-request-id']);
      socket.on('error', () => socket.destroy());
      socket.end(rawJsonError(TOO_MANY.status, TOO_MANY.message, requestId, TOO_MANY.extra), () => socket.destroy());
      return;
    }
    ws.handleUpgrade(req, socket, head);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be answered on a dead socket, nor once an answer has begun on it.
    const pending = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
      socket.destroy();
      return;
    }
    const answer =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? rawJsonError(408, 'Request timeout', requestIdFrom(undefined))
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? rawJsonError(431, 'Request header fields too large', requestIdFrom(undefined))
          : rawJsonError(400, 'Bad request', requestIdFrom(undefined));
    socket.end(answer, () => socket.destroy());
  });

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= (async () => {
      closing = true;
      ws.closeAll();
      const deadline = config.shutdownTimeoutMs;
      await new Promise<void>((resolve) => {
        // Idle keep-alive connections close now, busy ones as soon as their answer is out;
        // what is still running at the deadline is cut.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), deadline);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      ops.close();
      ops.closeAllConnections();
      await proxy.close(1_000);
      logger.info('gateway closed');
    })();
    return closed;
  }

  return { server, ops, close };
}
