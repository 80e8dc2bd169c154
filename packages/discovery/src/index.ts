// Public surface of @svc/discovery: the discovery documents generated from @svc/types.
export { buildDiscoveryDocuments, normaliseBaseUrl, DISCOVERY_PATHS } from './documents.js';
export type { DiscoveryDocument, DiscoveryOptions, DiscoveryPath } from './documents.js';
export { buildOpenApi, API_TITLE, API_VERSION, SECURITY_SCHEMES, TAGS } from './openapi.js';
export type { OpenApiOptions } from './openapi.js';
export { buildAgentTools, TOOL_SPECS } from './agent-tools.js';
export type { AgentTool, ArgumentLocation } from './agent-tools.js';
export {
  buildAiPlugin,
  buildMcpManifest,
  mcpToolOf,
  MCP_INSTRUCTIONS,
  MCP_PATH,
  MCP_SERVER_NAME,
} from './agent-manifests.js';
export type { McpTool } from './agent-manifests.js';
export { buildLlmsTxt, buildLlmsFullTxt } from './llms-txt.js';
export { componentSchemas } from './schema-names.js';
export { buildReferenceDocs, REFERENCE_BASE_URL } from './reference-docs.js';
export type { ReferenceDoc } from './reference-docs.js';
