// JSON-RPC to calls: an MCP server (the SDK's protocol layer) that lists the catalogue's
// tools and hands each tools/call to the call-tool action. One per HTTP request: the
// server is stateless, so nothing of one request outlives it.
//
// The SDK's low-level `Server`, not its `McpServer`: the tools' JSON Schemas come ready from
// the catalogue (the same bytes as mcp.json), and unknown tools and bad arguments stay
// JSON-RPC errors (McpServer would wrap them as tool results).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { API_TITLE, API_VERSION, MCP_INSTRUCTIONS, MCP_SERVER_NAME, type McpTool } from '@svc/discovery';
import type { CallTool } from '../actions/call-tool.js';
import type { Caller } from '../clients/rest-api.js';

export function createMcpServer(deps: { tools: readonly McpTool[]; callTool: CallTool; caller: Caller }): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: API_TITLE, version: API_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...deps.tools] }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    deps.callTool(request.params.name, request.params.arguments, deps.caller),
  );
  return server;
}
