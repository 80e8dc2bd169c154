// Process entry: settings, listen, graceful shutdown on SIGTERM/SIGINT.
import './instrument.js';
import { armShutdownDeadline } from '@svc/service-kit';
import { stopTracing } from '@svc/tracing';
import { loadConfig } from './config.js';
import { createGateway, createLogger } from './app.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const gateway = createGateway(config, { logger });

gateway.server.listen(config.port, () => {
  logger.info(
    { port: config.port, upstreams: config.upstreams, trustProxy: config.trustProxy, publicBaseUrl: config.publicBaseUrl },
    'gateway listening',
  );
});
gateway.server.on('error', (err) => {
  logger.fatal({ err }, 'gateway server error');
  process.exit(1);
});
// The private ops listener (docs/decisions/013-operations-port.md): never routed from the public entry.
gateway.ops.listen(config.opsPort, () => {
  logger.info({ opsPort: config.opsPort }, 'gateway ops listener (metrics, readiness)');
});
gateway.ops.on('error', (err) => {
  logger.fatal({ err, opsPort: config.opsPort }, 'gateway ops listener error (OPS_PORT)');
  process.exit(1);
});

let stopping = false;
function shutdown(signal: NodeJS.Signals): void {
  if (stopping) {
    logger.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  stopping = true;
  logger.info({ signal }, 'shutting down');
  // close() cuts requests at SHUTDOWN_TIMEOUT_MS and gives upstream pools 1 s; past that
  // (something it does not bound), the kit's deadline ends the process.
  armShutdownDeadline(config.shutdownTimeoutMs + 2_000, logger, () => 'gateway close');
  // Then the spans still buffered (tracing on), within the same deadline.
  gateway.close().then(stopTracing).then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('uncaughtException', (err) => {
  logger.fatal({ err }, 'uncaught exception');
  process.exit(1);
});
process.on('unhandledRejection', (err) => {
  logger.fatal({ err }, 'unhandled rejection');
  process.exit(1);
});
