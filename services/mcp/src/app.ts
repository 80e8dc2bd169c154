// The mcp express app, built from injected dependencies (tests pass their own REST client
// settings). No store: readiness is the process itself, never the services it calls (an
// outage of one is that tool's error, not a reason to stop serving the others).
import type { Express } from 'express';
import { buildAgentTools, mcpToolOf, type AgentTool } from '@svc/discovery';
import { createServiceApp, type Logger, type Metrics } from '@svc/service-kit';
import { findEndpoint } from '@svc/types';
import { createCallTool, type RunnableTool } from './actions/call-tool.js';
import type { RestApi } from './clients/rest-api.js';
import { compileArgumentChecks } from './domain/argument-check.js';
import { mcpRoutes } from './routes/mcp-routes.js';

export interface AppDeps {
  logger: Logger;
  metrics?: Metrics;
  rest: RestApi;
  /** MCP_ALLOWED_ORIGINS: browser origins that may call /mcp. */
  allowedOrigins: readonly string[];
  /** express trust-proxy setting (TRUSTED_PROXIES): the gateway. */
  trustProxy?: string | boolean | number;
  /** The agent tools (default: the catalogue's, as mcp.json lists them). */
  tools?: AgentTool[];
}

/** Each tool with the service that owns its endpoint; throws when one names no endpoint. */
export function runnableTools(tools: AgentTool[]): Map<string, RunnableTool> {
  const checks = compileArgumentChecks(tools);
  return new Map(
    tools.map((tool) => {
      const endpoint = findEndpoint(tool.http.method, tool.http.path);
      if (!endpoint) throw new Error(`tool ${tool.name}: no endpoint ${tool.http.method} ${tool.http.path}`);
      return [tool.name, { tool, service: endpoint.service, check: checks.get(tool.name)! }];
    }),
  );
}

export function buildApp(deps: AppDeps): Express {
  const tools = deps.tools ?? buildAgentTools();
  const callTool = createCallTool({ tools: runnableTools(tools), rest: deps.rest });
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    // A tool argument with a NUL or a lone surrogate is that tool's error: the REST endpoint
    // refuses it and the agent reads why, where a 400 here would fail the transport.
    refuseInvalidText: false,
    readiness: {},
    routes: (app) => {
      mcpRoutes(app, { tools: tools.map(mcpToolOf), callTool, allowedOrigins: deps.allowedOrigins, logger: deps.logger });
    },
  });
}
