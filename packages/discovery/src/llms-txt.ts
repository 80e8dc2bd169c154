// /llms.txt (llmstxt.org: `# title`, `> summary`, sections of links) and /llms-full.txt
// (every endpoint with its parameters, limits and errors, then the shapes). Both are
// rendered from the generated OpenAPI document and the catalogue, never written by hand.
import { SESSION_COOKIE_NAME, type Endpoint } from '@svc/types';
import type { AgentTool } from './agent-tools.js';
import { MCP_PATH } from './agent-manifests.js';
import { describeAuth, describeRateLimit } from './endpoint-prose.js';
import { API_TITLE, TAGS } from './openapi.js';
import { fieldLines, typeText, valueText } from './schema-text.js';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}
interface Operation {
  summary: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface OpenApi {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface LlmsInput {
  baseUrl: string;
  openapi: Record<string, unknown>;
  endpoints: readonly Endpoint[];
  tools: AgentTool[];
}

const SUMMARY =
  'Shared websites ranked by a trending score, a public chat room, AI translation between 12 languages, email-code login and an app store (`/api/v1`), all on one origin. JSON in and out; every error is `{"error": "..."}`.';

const AUTH_NOTE = [
  `Most endpoints are public. Log in with \`POST /api/auth/send-code\` then \`POST /api/auth/verify\`: the HttpOnly \`${SESSION_COOKIE_NAME}\` cookie it sets is the session of both interfaces.`,
  'App-store endpoints that say so also accept an app API key as `Authorization: Bearer <API_KEY>`.',
  'Rate-limited endpoints answer 429 with `Retry-After` (seconds) and `RateLimit-*` headers.',
].join(' ');

/** Section order and titles (tag → heading). */
const SECTIONS: Record<string, string> = {
  sites: 'Sites',
  chat: 'Chat',
  translate: 'Translation',
  realtime: 'Real-time channel',
  auth: 'Login and session',
  'app-store': 'App store (/api/v1)',
  discovery: 'Discovery',
};

/** JSON pointer of an operation in the OpenAPI document. */
const pointer = (e: Endpoint) =>
  `#/paths/${e.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${e.method.toLowerCase()}`;

function byTag(input: LlmsInput): Array<[string, Endpoint[]]> {
  const doc = input.openapi as unknown as OpenApi;
  const tagOf = (e: Endpoint) => doc.paths[e.path]?.[e.method.toLowerCase()]?.tags[0] ?? 'other';
  return Object.keys(SECTIONS).map((tag) => [tag, input.endpoints.filter((e) => tagOf(e) === tag)]);
}

export function buildLlmsTxt(input: LlmsInput): string {
  const { baseUrl } = input;
  const lines = [
    `# ${API_TITLE}`,
    '',
    `> ${SUMMARY}`,
    '',
    `Base URL: ${baseUrl}`,
    '',
    AUTH_NOTE,
    '',
  ];
  lines.push(
    '## Docs',
    '',
    `- [Complete reference](${baseUrl}/llms-full.txt): every endpoint with its parameters, limits and errors, and every shape`,
    `- [Interactive API reference](${baseUrl}/docs): both interfaces in a browser page, with a console to try each endpoint`,
    `- [OpenAPI 3.1 document](${baseUrl}/openapi.json): the machine-readable specification`,
    `- [MCP server](${baseUrl}${MCP_PATH}): Streamable HTTP, tools ${input.tools.map((t) => t.name).join(', ')}; definitions in ${baseUrl}/.well-known/mcp.json`,
    '',
  );
  for (const [tag, endpoints] of byTag(input)) {
    if (tag === 'discovery' || endpoints.length === 0) continue;
    lines.push(`## ${SECTIONS[tag]}`, '');
    for (const e of endpoints)
      lines.push(`- [${e.method} ${e.path}](${baseUrl}/openapi.json${pointer(e)}): ${e.summary}`);
    lines.push('');
  }
  lines.push('## Optional', '');
  lines.push(
    `- [AI plugin manifest](${baseUrl}/.well-known/ai-plugin.json): plugin manifest v1 with the same tools`,
  );
  lines.push(
    `- [Sitemap](${baseUrl}/sitemap.xml): every site page, with hreflang alternates for the 12 languages`,
  );
  return `${lines.join('\n')}\n`;
}

function resolve(doc: OpenApi, s: Schema): { name?: string; schema: Schema } {
  const ref = typeof s.$ref === 'string' ? s.$ref.split('/').pop() : undefined;
  return ref ? { name: ref, schema: doc.components.schemas[ref] ?? {} } : { schema: s };
}

function endpointSection(doc: OpenApi, e: Endpoint): string[] {
  const op = doc.paths[e.path]?.[e.method.toLowerCase()];
  if (!op) throw new Error(`no operation for ${e.method} ${e.path}`);
  const lines = [
    `### ${e.method} ${e.path}`,
    '',
    `${e.summary}. Operation id \`${e.operationId}\`.`,
    '',
  ];
  lines.push(describeAuth(e));
  const limit = describeRateLimit(e);
  if (limit) lines.push(limit);
  lines.push('');
  for (const where of ['path', 'query'] as const) {
    const params = (op.parameters ?? []).filter((p) => p.in === where);
    if (params.length === 0) continue;
    lines.push(where === 'path' ? 'Path parameters:' : 'Query parameters:');
    for (const p of params) {
      const description = p.description ?? (p.schema.description as string | undefined);
      lines.push(
        `- \`${p.name}\` (${p.required ? 'required' : 'optional'}, ${valueText(p.schema)})${description ? `: ${description}` : ''}`,
      );
    }
    lines.push('');
  }
  const body = op.requestBody?.content['application/json']?.schema;
  if (body) {
    const { name, schema } = resolve(doc, body);
    lines.push(`Body (application/json${name ? `, ${name}` : ''}):`, ...fieldLines(schema), '');
  }
  lines.push('Responses:');
  for (const [status, r] of Object.entries(op.responses)) {
    const [mediaType, media] = Object.entries(r.content ?? {})[0] ?? [];
    const shape =
      Number(status) >= 400
        ? ''
        : media
          ? ` → ${mediaType === 'application/json' ? typeText(media.schema) : mediaType}`
          : '';
    lines.push(`- ${status}: ${r.description}${shape}`);
  }
  lines.push('');
  return lines;
}

export function buildLlmsFullTxt(input: LlmsInput): string {
  const { baseUrl } = input;
  const doc = input.openapi as unknown as OpenApi;
  const lines = [
    `# ${API_TITLE}: complete reference`,
    '',
    `> ${SUMMARY}`,
    '',
    `Base URL: ${baseUrl}`,
    '',
  ];
  lines.push('## Conventions', '', doc.info.description, '');
  lines.push(
    'Error bodies are `ErrorResponse`. Statuses listed under each endpoint: 400 validation, 401 no valid session,',
    '403 not allowed, 404 not found, 409 conflict, 413 body too large, 429 rate limit, 500 internal error,',
    '503 a data store is unreachable.',
    '',
  );
  for (const [tag, endpoints] of byTag(input)) {
    if (endpoints.length === 0) continue;
    const description = TAGS.find((t) => t.name === tag)?.description;
    lines.push(`## ${SECTIONS[tag]}`, '', ...(description ? [description, ''] : []));
    for (const e of endpoints) lines.push(...endpointSection(doc, e));
  }
  lines.push(
    '## Shapes',
    '',
    'Records and value sets referred to above (JSON field: type, constraints).',
    '',
  );
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    lines.push(`### ${name}`, '');
    if (schema.type === 'object' && schema.properties) lines.push(...fieldLines(schema));
    else lines.push(valueText(schema));
    lines.push('');
  }
  lines.push(
    '## Agent tools',
    '',
    `The tools of the MCP server at ${baseUrl}${MCP_PATH} (Streamable HTTP), also in ${baseUrl}/.well-known/mcp.json with JSON Schemas.`,
    '',
  );
  for (const tool of input.tools) {
    const args = Object.entries(tool.http.arguments)
      .map(([name, where]) => `${name} (${where})`)
      .join(', ');
    lines.push(
      `- \`${tool.name}\`: ${tool.http.method} ${tool.http.path}; arguments ${args || 'none'}. ${tool.description}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
