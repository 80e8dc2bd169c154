// mcp process: settings, the REST client of the services, the app, listen, graceful
// shutdown. No database, no Redis: every tool is a REST call of a service.
import './instrument.js';
import {
  createLogger,
  createMetrics,
  createOpsHandler,
  defaultOpsPort,
  exitOnStartupError,
  loadConfig,
  opsHandlerOf,
  startService,
} from '@svc/service-kit';
import { buildApp } from './app.js';
import { createRestApi } from './clients/rest-api.js';
import { configSchema, upstreamsOf } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const logger = createLogger('mcp', config.LOG_LEVEL);
  const metrics = createMetrics('mcp');
  const rest = createRestApi({ upstreams: upstreamsOf(config), timeoutMs: config.MCP_UPSTREAM_TIMEOUT_MS });
  const app = buildApp({
    logger,
    metrics,
    rest,
    allowedOrigins: config.MCP_ALLOWED_ORIGINS,
    trustProxy: config.TRUSTED_PROXIES,
  });
  await startService({
    name: 'mcp',
    handler: app,
    port: config.PORT,
    // /metrics and /readyz on the private ops listener (docs/decisions/013-operations-port.md).
    ops: {
      port: defaultOpsPort(config.PORT, config.OPS_PORT),
      handler: opsHandlerOf(app) ?? createOpsHandler({ metrics }),
    },
    logger,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    resources: [{ name: 'rest client', close: async () => rest.close() }],
  });
}

main().catch(exitOnStartupError('mcp'));
