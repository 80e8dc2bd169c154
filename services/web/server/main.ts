// web process: settings, the server build, listen, graceful shutdown. No database: every
// piece of data comes from the API through @svc/client.
import './instrument.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createLogger,
  createMetrics,
  createOpsHandler,
  defaultOpsPort,
  exitOnStartupError,
  loadConfig,
  startService,
} from '@svc/service-kit';
import type { ServerBuild } from 'react-router';
import { buildApp, type WebAppDeps } from './app.js';
import { configSchema } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const logger = createLogger('web', config.LOG_LEVEL);
  const metrics = createMetrics('web');
  const serverEntry = path.join(config.WEB_BUILD_DIR, 'server', 'index.js');
  const build = (await import(pathToFileURL(serverEntry).href)) as ServerBuild;
  // app/entry.server.tsx exports the context key its loaders read.
  const { webRequest } = build.entry.module as unknown as { webRequest: WebAppDeps['webRequest'] };
  const app = buildApp({ config, build, webRequest, logger, metrics });
  await startService({
    name: 'web',
    handler: app,
    port: config.PORT,
    // /metrics and /readyz on the private ops listener (docs/decisions/013-operations-port.md).
    ops: { port: defaultOpsPort(config.PORT, config.OPS_PORT), handler: createOpsHandler({ metrics }) },
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch(exitOnStartupError('web'));
