// The WebSocket endpoint on the service's HTTP server: upgrades on /api/ws only, no
// authentication, client pings answered, protocol pings every WS_PING_INTERVAL_MS, and on
// shutdown every socket closed with 1012 (Service Restart) so clients reconnect elsewhere.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  ERROR_MESSAGES,
  WS_CLOSE_SERVICE_RESTART,
  WS_MAX_CLIENT_FRAME_BYTES,
  WS_PATH,
  WS_RESUME_PARAM,
} from '@svc/types';
import type { Logger } from '@svc/service-kit';
import { clientIp, type TrustFn } from '../domain/client-ip.js';
import { ConnectionCap } from '../domain/connection-cap.js';
import { isPing } from '../domain/client-message.js';
import { parseEventId } from '../domain/event-id.js';
import type { EntranceReporter } from '../clients/entrance-reporter.js';
import type { EventStream } from '../stream/event-stream.js';
import type { Hub } from './hub.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';
import { ERRORS, refuseResume, replay } from './resume.js';

const PONG = Buffer.from(JSON.stringify({ event: 'pong', payload: {} }));

export interface WsServerOptions {
  hub: Hub;
  entrance: EntranceReporter;
  trust: TrustFn;
  logger: Logger;
  pingIntervalMs: number;
  closeGraceMs: number;
  /** Open sockets per client IP (0: no cap). */
  maxConnectionsPerIp: number;
  /** The events stream; without it (WS_RESUME=false) last_event_id is ignored. */
  stream?: EventStream;
  metrics: RealtimeMetrics;
}

/** The resume request of an upgrade URL: absent, a well-formed id, or malformed. */
function resumeRequest(url: string | undefined): { after?: string; malformed?: true } {
  const query = (url ?? '').split('?')[1];
  if (query === undefined) return {};
  const raw = new URLSearchParams(query).get(WS_RESUME_PARAM);
  if (raw === null) return {};
  const after = parseEventId(raw);
  return after ? { after } : { malformed: true };
}

/** Seconds a client refused for holding too many sockets is told to wait. */
const CAP_RETRY_AFTER_S = 5;

function refuse(socket: Duplex, status: number, reason: string, error: string, extra = ''): void {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** Attaches to `server`; returns the drain step of graceful shutdown. */
export function attachWebSocketServer(server: http.Server, opts: WsServerOptions) {
  const { hub } = opts;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: WS_MAX_CLIENT_FRAME_BYTES,
    clientTracking: false,
  });
  let closing = false;
  const cap = new ConnectionCap(opts.maxConnectionsPerIp);

  function onConnection(ws: WebSocket, ip: string, url: string | undefined): void {
    const resume = opts.stream ? resumeRequest(url) : {};
    hub.add(ws, resume.after !== undefined);
    ws.on('error', () => undefined); // 'close' follows; nothing else to do
    ws.on('message', (data, isBinary) => {
      hub.touch(ws);
      if (!isBinary && isPing(data.toString())) hub.send(ws, PONG);
    });
    opts.entrance.report(ip);
    if (resume.malformed) {
      opts.metrics.resumes.inc({ result: 'refused' });
      refuseResume(ws, ERRORS.malformed);
    } else if (resume.after !== undefined && opts.stream) {
      void replay(ws, resume.after, {
        stream: opts.stream,
        hub,
        logger: opts.logger,
        metrics: opts.metrics,
      });
    }
  }

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) return refuse(socket, 404, 'Not Found', ERROR_MESSAGES.notFound);
    if (closing) {
      return refuse(socket, 503, 'Service Unavailable', ERROR_MESSAGES.serviceUnavailable);
    }
    const ip = clientIp(req, opts.trust);
    if (!cap.tryAcquire(ip)) {
      return refuse(
        socket,
        429,
        'Too Many Requests',
        ERROR_MESSAGES.tooManyRequests,
        `Retry-After: ${CAP_RETRY_AFTER_S}\r\n`,
      );
    }
    // The TCP socket closes when the WebSocket does, or when the handshake fails.
    socket.once('close', () => cap.release(ip));
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, ip, req.url));
  });

  const pinger = setInterval(() => hub.pingAll(), opts.pingIntervalMs);
  pinger.unref();

  return async function drain(): Promise<void> {
    closing = true;
    clearInterval(pinger);
    opts.logger.info({ clients: hub.size }, 'closing WebSockets (1012 Service Restart)');
    await hub.closeAll(WS_CLOSE_SERVICE_RESTART, 'Service restart', opts.closeGraceMs);
    await opts.entrance.settle();
  };
}
