// HTTP of /mcp, the Streamable HTTP transport in its stateless form: each POST carries one
// JSON-RPC message and gets its answer as JSON; there is no session, so GET (a stream of
// server messages) and DELETE (ending a session) answer 405. The `Origin` check comes first
// (docs/decisions/028-mcp-server.md); every refusal here is a JSON-RPC error object.
import type { ErrorRequestHandler, Express, RequestHandler, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { MCP_PATH, type McpTool } from '@svc/discovery';
import { byIp, type Logger } from '@svc/service-kit';
import { ERROR_MESSAGES } from '@svc/types';
import type { CallTool } from '../actions/call-tool.js';
import { originAllowed } from '../domain/allowed-origins.js';
import { createMcpServer } from './mcp-server.js';

/** Headers a browser page on an allowed origin may send (its preflight asks for them). */
const CORS_ALLOW_HEADERS = 'Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Request-Id';
const CORS_MAX_AGE_S = 600;

export interface McpRouteDeps {
  tools: readonly McpTool[];
  callTool: CallTool;
  allowedOrigins: readonly string[];
  logger: Logger;
}

/** A JSON-RPC error answer without an id (the request had none we could read, or none applies). */
function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}

export function mcpRoutes(app: Express, deps: McpRouteDeps): void {
  const checkOrigin: RequestHandler = (req, res, next) => {
    res.vary('Origin');
    const origin = req.headers.origin;
    if (!originAllowed(origin, deps.allowedOrigins)) {
      rpcError(res, 403, -32000, `Forbidden: Origin ${origin} may not use this server`);
      return;
    }
    if (origin !== undefined) res.setHeader('Access-Control-Allow-Origin', origin);
    next();
  };

  app.options(MCP_PATH, checkOrigin, (_req, res) => {
    res
      .set({
        'Access-Control-Allow-Methods': 'GET, POST, DELETE',
        'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
        'Access-Control-Max-Age': String(CORS_MAX_AGE_S),
      })
      .status(204)
      .end();
  });

  app.post(MCP_PATH, checkOrigin, async (req, res) => {
    // MCP 2025-06-18 and later carry one message per request; a batch would fan one HTTP
    // request out into as many REST calls as it holds.
    if (Array.isArray(req.body)) {
      rpcError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: batches are not supported, send one JSON-RPC message per request');
      return;
    }
    const caller = { clientIp: byIp(req), requestId: String(req.headers['x-request-id']) };
    const server = createMcpServer({ tools: deps.tools, callTool: deps.callTool, caller });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (err) => deps.logger.debug({ err, reqId: caller.requestId }, 'mcp request refused');
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  const noSession: RequestHandler = (_req, res) => {
    res.setHeader('Allow', 'POST, OPTIONS');
    rpcError(res, 405, -32000, 'Method not allowed: this server is stateless, POST one JSON-RPC message per request');
  };
  app.get(MCP_PATH, checkOrigin, noSession);
  app.delete(MCP_PATH, checkOrigin, noSession);

  app.use(MCP_PATH, jsonRpcErrors(deps.logger));
}

/** Errors before or around the transport (the body parser's, a failure) as JSON-RPC errors. */
function jsonRpcErrors(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const { type, status } = err as { type?: string; status?: number };
    if (type === 'entity.parse.failed' || type === 'charset.unsupported' || type === 'encoding.unsupported')
      return rpcError(res, 400, ErrorCode.ParseError, `Parse error: ${ERROR_MESSAGES.invalidJson}`);
    if (type === 'entity.too.large') return rpcError(res, 413, ErrorCode.InvalidRequest, ERROR_MESSAGES.payloadTooLarge);
    if (typeof status === 'number' && status >= 400 && status < 500)
      return rpcError(res, status, ErrorCode.InvalidRequest, (err as Error).message || 'Bad request');
    logger.error({ err, reqId: req.headers['x-request-id'] }, 'mcp request failed');
    rpcError(res, 500, ErrorCode.InternalError, 'Internal error');
  };
}
