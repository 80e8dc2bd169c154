// Wires the gateway: a bare Node HTTP server whose request handler forwards routing-table
// paths straight to the proxy engine (no express, no per-request logging on that path) and
// hands everything else to the express app of own routes; upgrades go to the WS proxy.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { buildDiscoveryDocuments, type DiscoveryDocument } from '@svc/discovery';
import { createLogger as createServiceLogger, type Logger } from '@svc/service-kit';
import { clientInfo, compileTrust } from './client-ip.js';
import type { GatewayConfig, UpstreamName } from './config.js';
import { createHttpProxy } from './http-proxy.js';
import { createMetrics } from './metrics.js';
import { createOwnRoutes } from './own-routes.js';
import { requestIdFrom } from './request-id.js';
import { findRoute, HTTP_ROUTES, WS_ROUTES } from './routing-table.js';
import { createWsProxy } from './ws-proxy.js';

export interface GatewayOptions {
  logger?: Logger;
  /** Node process metrics (CPU, memory, event loop) on /metrics. Default true. */
  defaultMetrics?: boolean;
  /** Renders the discovery documents (tests replace it). Default: @svc/discovery. */
  buildDiscovery?: typeof buildDiscoveryDocuments;
}

export interface Gateway {
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish (bounded), closes tunnels and pools. */
  close(): Promise<void>;
}

/** Keep idle client connections longer than the usual load-balancer idle timeout (60 s). */
const CLIENT_KEEP_ALIVE_MS = 65_000;

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
  const app = createOwnRoutes({
    trustProxy: config.trustProxy,
    probe: (name: UpstreamName) => proxy.probe(name, '/readyz', config.readyTimeoutMs),
    metrics,
    logger,
    discovery,
  });

  const server = http.createServer((req, res) => {
    const startedAt = performance.now();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const route = findRoute(HTTP_ROUTES, req.url as string);
    if (route !== undefined) {
      proxy.forward(req, res, route, requestId, clientInfo(req, trust), startedAt);
      return;
    }
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    if (closing) res.shouldKeepAlive = false;
    app(req, res);
  });
  server.keepAliveTimeout = CLIENT_KEEP_ALIVE_MS;
  server.headersTimeout = CLIENT_KEEP_ALIVE_MS + 1_000;
  server.on('upgrade', ws.handleUpgrade);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({ error: 'Bad request' });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
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
      await proxy.close(1_000);
      logger.info('gateway closed');
    })();
    return closed;
  }

  return { server, close };
}
