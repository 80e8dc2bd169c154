// Process lifecycle: listen, then on SIGTERM/SIGINT stop accepting, let in-flight
// requests finish, close pools and exit, all within the shutdown timeout. Every step is
// bounded, and a hard deadline ends the process if a stop still runs past the timeout.
import http from 'node:http';
import type { RequestListener } from 'node:http';
import type { Logger } from '../ops/logger.js';
import { withTimeout } from '../ops/health.js';
import { stopTracing } from '@svc/tracing';

export interface RunningService {
  server: http.Server;
  port: number;
  /** The private ops listener (/metrics, detailed /readyz), when one was asked for. */
  ops?: { server: http.Server; port: number };
  /** Graceful stop: used by the signal handlers and by tests. */
  stop: () => Promise<void>;
}

type Close = () => Promise<unknown> | unknown;
/** Something closed at shutdown; named, a step that hangs is reported by its name. */
export type Resource = Close | { name: string; close: Close };

/** How long past the shutdown timeout a stop may run before the process is ended by force. */
export const SHUTDOWN_MARGIN_MS = 1000;
/** Kept from in-flight requests for closing resources: 1 s, or a quarter of a shorter timeout. */
const RESOURCE_RESERVE_MS = 1000;

export interface StartOptions {
  name: string;
  handler: RequestListener;
  port: number;
  host?: string;
  logger: Logger;
  /**
   * The private operations listener (docs/decisions/013-operations-port.md) beside the public one: same
   * lifecycle, closed once in-flight public requests are done. Its host defaults to `host`.
   */
  ops?: { port: number; handler: RequestListener; host?: string };
  /** Closed in order after the server has stopped (Prisma, Redis, queues...). */
  resources?: Resource[];
  /**
   * The whole graceful stop fits in it: requests get it minus a reserve, then resources
   * close in order, each bounded by what is left. A step still running when it is used up
   * is abandoned (logged) with the steps after it.
   */
  shutdownTimeoutMs?: number;
  /** Install SIGTERM/SIGINT handlers that exit the process (false in tests). */
  handleSignals?: boolean;
  /**
   * Extra work on the same server, e.g. WebSocket upgrades. It may return a function that
   * shutdown runs right after the server stops accepting connections and before it waits
   * for them: long-lived connections (WebSockets) must be closed by it, or the wait lasts
   * until the timeout.
   */
  onServer?: (server: http.Server) => void | (() => Promise<unknown> | unknown);
}

/** Pending connections the kernel may queue for accept() (see listen). */
export const LISTEN_BACKLOG = 4096;

export async function startService(opts: StartOptions): Promise<RunningService> {
  const server = http.createServer(opts.handler);
  // Longer than typical load-balancer idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const drain = opts.onServer?.(server);
  await listen(server, opts.port, opts.host ?? '0.0.0.0');
  const port = (server.address() as { port: number }).port;
  const log = opts.logger;
  let ops: RunningService['ops'];
  if (opts.ops) {
    const opsServer = http.createServer(opts.ops.handler);
    try {
      await listen(opsServer, opts.ops.port, opts.ops.host ?? opts.host ?? '0.0.0.0');
    } catch (err) {
      server.close();
      throw new Error(`ops listener (OPS_PORT ${opts.ops.port}): ${(err as Error).message}`, {
        cause: err,
      });
    }
    ops = { server: opsServer, port: (opsServer.address() as { port: number }).port };
  }
  log.info({ port, opsPort: ops?.port }, `${opts.name} listening`);

  const timeout = opts.shutdownTimeoutMs ?? 10_000;
  const resources = (opts.resources ?? []).map((r, i) =>
    typeof r === 'function' ? { name: `resource ${i + 1}`, close: r } : r,
  );
  let step = 'running';
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const deadline = Date.now() + timeout;
      const requestsDeadline = deadline - Math.min(RESOURCE_RESERVE_MS, timeout / 4);
      log.info('shutting down: no new connections, finishing in-flight requests');
      step = 'in-flight requests';
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (drain) {
        step = 'draining long-lived connections';
        const drained = await within(drain, requestsDeadline - Date.now());
        if (drained === 'timeout')
          log.warn('shutdown timeout: long-lived connections still draining');
        else if (drained) log.warn({ err: drained.error }, 'error while draining connections');
        step = 'in-flight requests';
      }
      if ((await within(() => closed, requestsDeadline - Date.now())) === 'timeout') {
        log.warn('shutdown timeout: closing remaining connections');
        server.closeAllConnections();
      }
      if (ops) {
        // Scrapes and probes are short: no drain, the listener just goes.
        ops.server.close();
        ops.server.closeAllConnections();
      }
      for (const [i, resource] of resources.entries()) {
        step = resource.name;
        const outcome = await within(resource.close, deadline - Date.now());
        if (outcome === 'timeout') {
          log.warn(
            { step: resource.name, skipped: resources.slice(i + 1).map((r) => r.name), timeout },
            'shutdown timeout: a step is still running; abandoning it and the steps after it',
          );
          break;
        }
        if (outcome)
          log.warn({ err: outcome.error, step: resource.name }, 'error while closing a resource');
      }
      // The spans still buffered (tracing on), within what is left of the timeout.
      step = 'tracing export';
      await within(stopTracing, deadline - Date.now());
      step = 'stopped';
      log.info('stopped');
    })());

  if (opts.handleSignals ?? true)
    installSignalHandlers(stop, log, { timeoutMs: timeout, step: () => step });
  return { server, port, ops, stop };
}

// backlog: Node's default (511) overflows when thousands of clients reconnect at once (a
// realtime replica's clients after a restart): dropped SYNs are retried by the client's
// kernel after 1, 3, 7, 15 s. The kernel caps it at net.core.somaxconn.
function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Runs `run` for at most `ms`: undefined when it settled, its error, or 'timeout'. */
function within(run: Close, ms: number): Promise<undefined | { error: unknown } | 'timeout'> {
  const settled = Promise.resolve()
    .then(run)
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  return withTimeout(settled, Math.max(0, ms), 'shutdown step').catch(() => 'timeout' as const);
}

/**
 * The backstop of a graceful stop: if the process still runs `ms` from now, log the step
 * it is stuck in and exit 1. The timer does not keep the process alive.
 */
export function armShutdownDeadline(
  ms: number,
  logger: Logger,
  step: () => string = () => 'unknown',
): void {
  setTimeout(() => {
    logger.fatal({ step: step(), afterMs: ms }, 'shutdown deadline passed: exiting now');
    process.exit(1);
  }, ms).unref();
}

/**
 * SIGTERM/SIGINT run `stop` once and exit 0 (1 if it failed); a second signal exits at once.
 * With `timeoutMs`, the process exits 1 if `stop` still runs SHUTDOWN_MARGIN_MS after it,
 * naming the step it hung in (`step`).
 */
export function installSignalHandlers(
  stop: () => Promise<void>,
  logger: Logger,
  deadline: { timeoutMs: number; step?: () => string } | undefined = undefined,
): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    if (deadline)
      armShutdownDeadline(deadline.timeoutMs + SHUTDOWN_MARGIN_MS, logger, deadline.step);
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
}

/** Top-level failure of a main(): print why (e.g. a ConfigError) and exit non-zero. */
export function exitOnStartupError(name: string) {
  return (err: unknown) => {
    console.error(`${name} failed to start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  };
}
