// WebSocket upgrades: `Upgrade: websocket` on a WS route is tunnelled to its upstream
// (handshake forwarded with the gateway's headers, then raw bytes both ways); any other
// upgrade is refused by destroying the socket.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { clientInfo, type TrustFn } from '../edge/client-ip.js';
import type { UpstreamName } from '../config.js';
import { clientResponseHeaders, rawJsonError, upstreamRequestHeaders } from './headers.js';
import { failureFor } from './http-proxy.js';
import type { Metrics } from '../ops/metrics.js';
import { requestIdFrom } from '../edge/request-id.js';
import { findRoute, type Route } from './routing-table.js';

export interface WsProxyOptions {
  routes: readonly Route[];
  upstreams: Record<UpstreamName, string>;
  trust: TrustFn;
  timeoutMs: number;
  logger: Logger;
  metrics: Metrics;
}

export interface WsProxy {
  /** The server's 'upgrade' listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Number of open tunnels. */
  size(): number;
  /** Ends every open tunnel (shutdown). */
  closeAll(): void;
}

function rawResponse(status: number, message: string, headers: string[]): string {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n`;
}

export function createWsProxy(options: WsProxyOptions): WsProxy {
  const { logger, metrics } = options;
  const tunnels = new Set<Duplex>();
  const targets = new Map<UpstreamName, URL>();
  for (const [name, origin] of Object.entries(options.upstreams) as Array<[UpstreamName, string]>) {
    targets.set(name, new URL(origin));
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const startedAt = performance.now();
    socket.on('error', () => socket.destroy());
    const route = findRoute(options.routes, req.url ?? '/');
    const upgrade = req.headers.upgrade;
    if (route === undefined || req.method !== 'GET' || upgrade?.toLowerCase() !== 'websocket') {
      socket.destroy();
      return;
    }
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const client = clientInfo(req, options.trust);
    const target = targets.get(route.upstream) as URL;
    const secure = target.protocol === 'https:';
    let settled = false;

    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      const { status, message } = failureFor(err);
      logger.warn({ reqId: requestId, route: route.path, upstream: route.upstream, status, err }, 'websocket upstream failed');
      metrics.record(route.path, status, startedAt);
      if (!socket.destroyed) socket.end(rawJsonError(status, message, requestId));
    };

    const upstreamReq = (secure ? https : http).request({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || (secure ? 443 : 80),
      method: 'GET',
      path: req.url,
      headers: upstreamRequestHeaders(req.rawHeaders, undefined, requestId, client, true),
      agent: false,
      timeout: options.timeoutMs,
    });

    // The client left during the handshake: give up upstream too.
    const onClientGone = (): void => {
      if (settled) return;
      settled = true;
      metrics.record(route.path, 499, startedAt);
      upstreamReq.destroy();
    };
    socket.once('close', onClientGone);

    upstreamReq.on('timeout', () => {
      const err = Object.assign(new Error('websocket handshake timed out'), { code: 'ETIMEDOUT' });
      fail(err);
      upstreamReq.destroy();
    });
    upstreamReq.on('error', fail);

    // The upstream refused the upgrade (403, 404...): pass its answer on, then close.
    upstreamReq.on('response', (upstreamRes) => {
      if (settled) {
        upstreamRes.destroy();
        return;
      }
      settled = true;
      socket.off('close', onClientGone);
      metrics.record(route.path, upstreamRes.statusCode ?? 502, startedAt);
      const headers = clientResponseHeaders(upstreamRes.rawHeaders, requestId);
      socket.write(
        rawResponse(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage ?? '', [...headers, 'connection', 'close']),
      );
      upstreamRes.pipe(socket);
      upstreamRes.on('error', () => socket.destroy());
    });

    upstreamReq.on('upgrade', (upstreamRes: IncomingMessage, upstreamSocket: Socket, upstreamHead: Buffer) => {
      upstreamSocket.on('error', () => upstreamSocket.destroy());
      if (settled) {
        upstreamSocket.destroy();
        return;
      }
      settled = true;
      socket.off('close', onClientGone);
      const headers = clientResponseHeaders(upstreamRes.rawHeaders, requestId, true);
      socket.write(rawResponse(101, 'Switching Protocols', headers));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.setNoDelay(true);
      upstreamSocket.setTimeout(0);
      (socket as Socket).setNoDelay?.(true);
      (socket as Socket).setTimeout?.(0);
      tunnels.add(socket);
      socket.once('close', () => {
        tunnels.delete(socket);
        upstreamSocket.destroy();
      });
      upstreamSocket.once('close', () => socket.destroy());
      upstreamSocket.pipe(socket);
      socket.pipe(upstreamSocket);
      metrics.record(route.path, 101, startedAt);
      logger.debug({ reqId: requestId, route: route.path }, 'websocket tunnel opened');
    });

    upstreamReq.end();
  }

  return {
    handleUpgrade,
    size: () => tunnels.size,
    closeAll() {
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
    },
  };
}
