// The HTTP proxy engine: one undici Pool (keep-alive connections) per upstream, requests
// dispatched with a small handler that streams the answer (honouring back-pressure), aborts
// the upstream request when the client goes away, and answers 502/504 JSON when the
// upstream fails before answering. A request body is read whole first (bounded in size and
// time: 413/408), so no upstream connection waits on a slow client. See README.md ("Engine").
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { hasBody } from '@svc/service-kit';
import { Pool, type Dispatcher } from 'undici';
import type { ClientInfo } from '../edge/client-ip.js';
import type { UpstreamName } from '../config.js';
import { clientResponseHeaders, errorAnswer, upstreamRequestHeaders } from './headers.js';
import type { Metrics } from '../ops/metrics.js';
import { readBody, type BodyFailure, type BodyLimits } from './request-body.js';
import type { Route } from './routing-table.js';

/** Status recorded when the client left before the answer was complete (nginx's 499). */
export const CLIENT_CLOSED = 499;

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** The gateway's answer when the upstream failed before answering. */
export function failureFor(err: unknown): { status: number; message: string } {
  const code = (err as { code?: string } | null)?.code;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { status: 504, message: 'Gateway timeout' };
  if (code === 'UND_ERR_INVALID_ARG') return { status: 400, message: 'Bad request' };
  return { status: 502, message: 'Bad gateway' };
}

class ClientClosedError extends Error {
  readonly code = 'GW_CLIENT_CLOSED';
  constructor() {
    super('client closed the connection');
  }
}

export interface HttpProxyOptions {
  upstreams: Record<UpstreamName, string>;
  timeoutMs: number;
  /** Request bodies: largest accepted (413 beyond) and time to receive one (408 beyond). */
  body: BodyLimits;
  logger: Logger;
  metrics: Metrics;
  /** True once shutdown began: answers then carry `Connection: close`. */
  isClosing: () => boolean;
}

export interface HttpProxy {
  /** `extra`: headers for every answer of this request (CORS on /api), also the gateway's errors. */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    requestId: string,
    client: ClientInfo,
    startedAt: number,
    extra?: readonly string[],
    traceparent?: string,
  ): void;
  /** GET <upstream>/readyz within timeoutMs: true on a 2xx. */
  probe(name: UpstreamName, path: string, timeoutMs: number): Promise<boolean>;
  /** Closes the pools, waiting at most timeoutMs for in-flight upstream requests. */
  close(timeoutMs: number): Promise<void>;
}

interface Shared {
  logger: Logger;
  metrics: Metrics;
  debug: boolean;
  isClosing: () => boolean;
}

/** One proxied request. Implements undici's dispatch handler interface (v7+, kept in v8). */
class ProxyHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status = 0;
  private clientGone = false;
  private finished = false;
  /** Body bytes still expected when the upstream sent Content-Length, else -1. */
  private remaining = -1;

  constructor(
    private readonly shared: Shared,
    private readonly res: ServerResponse,
    private readonly route: Route,
    private readonly requestId: string,
    private readonly startedAt: number,
    private readonly extra: readonly string[] | undefined,
  ) {
    // on/off rather than once: no wrapper per request; onClientClose ignores a late call.
    res.on('close', this.onClientClose);
  }

  private readonly onClientClose = (): void => {
    if (this.finished || this.res.writableFinished) return;
    this.clientGone = true;
    this.controller?.abort(new ClientClosedError());
  };

  /** Made on the first back-pressure wait only: most answers fit the socket buffer. */
  private resume: (() => void) | undefined;

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.clientGone) controller.abort(new ClientClosedError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number): void {
    if (statusCode < 200) return; // 1xx: Node answers 100-continue to the client itself
    this.status = statusCode;
    const raw = (controller.rawHeaders ?? []) as Array<Buffer | string>;
    if (this.shared.isClosing()) this.res.shouldKeepAlive = false;
    const headers = clientResponseHeaders(raw, this.requestId, false, this.extra);
    this.remaining = contentLength(headers);
    this.res.writeHead(statusCode, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.remaining !== -1) {
      this.remaining -= chunk.length;
      // The last chunk goes out with the end of the response: one socket write, not two.
      if (this.remaining <= 0) {
        this.res.end(chunk);
        return;
      }
    }
    if (!this.res.write(chunk)) {
      controller.pause();
      this.resume ??= () => this.controller?.resume();
      this.res.once('drain', this.resume);
    }
  }

  onResponseEnd(): void {
    if (!this.res.writableEnded) this.res.end();
    this.done(this.status);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.finished) return;
    const res = this.res;
    if (this.clientGone || res.destroyed) {
      this.done(CLIENT_CLOSED);
      return;
    }
    if (res.headersSent) {
      // Too late for an error answer: cut the connection so the client sees a broken body.
      this.shared.logger.warn(
        { reqId: this.requestId, route: this.route.path, upstream: this.route.upstream, err },
        'upstream response interrupted',
      );
      res.destroy();
      this.done(this.status);
      return;
    }
    const { status, message } = failureFor(err);
    this.shared.logger.warn(
      { reqId: this.requestId, route: this.route.path, upstream: this.route.upstream, status, err },
      'upstream request failed',
    );
    const answer = errorAnswer(this.route.upstream, status, message, this.requestId, this.extra);
    if (this.shared.isClosing()) res.shouldKeepAlive = false;
    res.writeHead(status, answer.headers);
    res.end(answer.body);
    this.done(status);
  }

  private done(status: number): void {
    this.finished = true;
    this.res.off('close', this.onClientClose);
    this.shared.metrics.record(this.route.path, status, this.startedAt);
    if (this.shared.debug) {
      this.shared.logger.debug(
        { reqId: this.requestId, route: this.route.path, status, ms: Math.round(performance.now() - this.startedAt) },
        'proxied',
      );
    }
  }
}

function contentLength(headers: string[]): number {
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] as string;
    if (name.length === 14 && name.toLowerCase() === 'content-length') {
      const n = Number(headers[i + 1]);
      return Number.isSafeInteger(n) && n > 0 ? n : -1;
    }
  }
  return -1;
}

/** The gateway's answer when it could not get a request's body. */
const BODY_FAILURES = {
  'too-large': { status: 413, message: 'Payload too large' },
  timeout: { status: 408, message: 'Request timeout' },
} as const;

export function createHttpProxy(options: HttpProxyOptions): HttpProxy {
  const { timeoutMs } = options;
  const pools = new Map<UpstreamName, Pool>();
  for (const [name, origin] of Object.entries(options.upstreams) as Array<[UpstreamName, string]>) {
    pools.set(
      name,
      new Pool(origin, {
        // Unbounded like a keep-alive http.Agent; idle sockets are kept for the upstream's
        // Keep-Alive hint (Node servers: 5 s) or 4 s.
        connections: null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        connectTimeout: Math.min(timeoutMs, 10_000),
      }),
    );
  }
  const shared: Shared = {
    logger: options.logger,
    metrics: options.metrics,
    debug: options.logger.isLevelEnabled('debug'),
    isClosing: options.isClosing,
  };

  function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    requestId: string,
    client: ClientInfo,
    startedAt: number,
    body: Buffer | null,
    extra: readonly string[] | undefined,
    traceparent: string | undefined,
  ): void {
    const pool = pools.get(route.upstream) as Pool;
    const handler = new ProxyHandler(shared, res, route, requestId, startedAt, extra);
    pool.dispatch(
      {
        method: req.method as string,
        path: req.url as string,
        headers: upstreamRequestHeaders(req.rawHeaders, req.headers.connection, requestId, client, false, traceparent),
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      handler,
    );
  }

  /** 413/408 for a body that was too large or too slow (the connection then closes). */
  function refuse(
    res: ServerResponse,
    route: Route,
    requestId: string,
    startedAt: number,
    failure: BodyFailure,
    extra: readonly string[] | undefined,
  ): void {
    if (failure === 'aborted' || res.headersSent || res.destroyed) {
      shared.metrics.record(route.path, CLIENT_CLOSED, startedAt);
      return;
    }
    const { status, message } = BODY_FAILURES[failure];
    shared.logger.debug({ reqId: requestId, route: route.path, status }, 'request body refused');
    const answer = errorAnswer(route.upstream, status, message, requestId, extra);
    // The rest of the body is not wanted: close rather than read it to find the next request.
    res.shouldKeepAlive = false;
    res.writeHead(status, answer.headers);
    res.end(answer.body);
    shared.metrics.record(route.path, status, startedAt);
  }

  return {
    forward(req, res, route, requestId, client, startedAt, extra, traceparent) {
      if (!hasBody(req)) {
        dispatch(req, res, route, requestId, client, startedAt, null, extra, traceparent);
        return;
      }
      readBody(req, options.body, (body) => {
        if (typeof body === 'string') refuse(res, route, requestId, startedAt, body, extra);
        else dispatch(req, res, route, requestId, client, startedAt, body, extra, traceparent);
      });
    },

    async probe(name, path, probeTimeoutMs) {
      const pool = pools.get(name) as Pool;
      try {
        const { statusCode, body } = await pool.request({
          method: 'GET',
          path,
          headersTimeout: probeTimeoutMs,
          bodyTimeout: probeTimeoutMs,
          signal: AbortSignal.timeout(probeTimeoutMs),
        });
        await body.dump();
        return statusCode >= 200 && statusCode < 300;
      } catch {
        return false;
      }
    },

    async close(closeTimeoutMs) {
      const all = [...pools.values()];
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), closeTimeoutMs);
        timer.unref();
      });
      const outcome = await Promise.race([Promise.all(all.map((p) => p.close())), deadline]);
      clearTimeout(timer);
      if (outcome === 'timeout') await Promise.all(all.map((p) => p.destroy()));
    },
  };
}
