// Process lifecycle: listen, then on SIGTERM/SIGINT stop accepting, let in-flight
// requests finish (bounded), close pools and exit.
import http from 'node:http';
import type { RequestListener } from 'node:http';
import type { Logger } from './logger.js';

export interface RunningService {
  server: http.Server;
  port: number;
  /** Graceful stop: used by the signal handlers and by tests. */
  stop: () => Promise<void>;
}

export interface StartOptions {
  name: string;
  handler: RequestListener;
  port: number;
  host?: string;
  logger: Logger;
  /** Closed in order after the server has stopped (Prisma, Redis, queues...). */
  resources?: Array<() => Promise<unknown> | unknown>;
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

export async function startService(opts: StartOptions): Promise<RunningService> {
  const server = http.createServer(opts.handler);
  // Longer than typical load-balancer idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const drain = opts.onServer?.(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  opts.logger.info({ port }, `${opts.name} listening`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      opts.logger.info('shutting down: no new connections, finishing in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (drain) {
        try {
          await drain();
        } catch (err) {
          opts.logger.warn({ err }, 'error while draining connections');
        }
      }
      const timeout = opts.shutdownTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        closed,
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            opts.logger.warn('shutdown timeout: closing remaining connections');
            server.closeAllConnections();
            resolve();
          }, timeout);
        }),
      ]);
      clearTimeout(timer);
      for (const close of opts.resources ?? []) {
        try {
          await close();
        } catch (err) {
          opts.logger.warn({ err }, 'error while closing a resource');
        }
      }
      opts.logger.info('stopped');
    })());

  if (opts.handleSignals ?? true) installSignalHandlers(stop, opts.logger);
  return { server, port, stop };
}

/** SIGTERM/SIGINT run `stop` once and exit; a second signal exits at once. */
export function installSignalHandlers(stop: () => Promise<void>, logger: Logger): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    logger.info({ signal }, 'signal received');
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
