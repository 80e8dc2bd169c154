// /.well-known/ai-plugin.json and /.well-known/mcp.json: the same tools in two manifests.
//
// ai-plugin.json follows the plugin manifest v1 (schema_version, name_for_model, api →
// /openapi.json, auth none: every tool is public) and adds the tool list. No logo, contact
// or legal URLs: the platform has none to point at, and inventing them would mislead.
//
// mcp.json has no settled standard for a plain HTTP API. It describes the server and lists
// tools in MCP's Tool shape (name, title, description, inputSchema, outputSchema,
// annotations); this API has no MCP (JSON-RPC) endpoint, so each tool's `_meta.http` says
// which HTTP request performs it and where each argument goes (path, query or body).
import type { AgentTool } from './agent-tools.js';
import { API_TITLE, API_VERSION } from './openapi.js';

const SUMMARY =
  'Shared websites ranked by trending score, a public chat room, AI translation between 12 languages, and an app store of web apps, PWAs and dApps.';

export function buildAiPlugin(baseUrl: string, tools: AgentTool[]): Record<string, unknown> {
  return {
    schema_version: 'v1',
    name_for_human: 'Svc platform',
    name_for_model: 'svc_platform',
    description_for_human: SUMMARY,
    description_for_model: `${SUMMARY} Use the tools to search and submit sites, list, search and read apps, translate text and read the chat. Everything here is public; errors are JSON {"error": "..."}; 429 means wait Retry-After seconds.`,
    auth: { type: 'none' },
    api: { type: 'openapi', url: `${baseUrl}/openapi.json` },
    llms_txt_url: `${baseUrl}/llms.txt`,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      operationId: tool.http.operationId,
      method: tool.http.method,
      path: tool.http.path,
      arguments: tool.http.arguments,
      input_schema: tool.inputSchema,
      output_schema: tool.outputSchema,
    })),
  };
}

export function buildMcpManifest(baseUrl: string, tools: AgentTool[]): Record<string, unknown> {
  return {
    name: 'svc-platform',
    title: API_TITLE,
    version: API_VERSION,
    description: SUMMARY,
    websiteUrl: baseUrl,
    documentation: {
      openapi: `${baseUrl}/openapi.json`,
      llms: `${baseUrl}/llms.txt`,
      llmsFull: `${baseUrl}/llms-full.txt`,
    },
    transport: {
      type: 'http',
      baseUrl,
      note: 'Tools are plain HTTPS calls (JSON bodies and answers); see each tool’s _meta.http.',
    },
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
      _meta: { http: { ...tool.http, url: `${baseUrl}${tool.http.path}` } },
    })),
  };
}
