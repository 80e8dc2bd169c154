// The tools offered to AI agents (docs/decisions/007-discovery-documents.md: search sites, submit a site, list/search
// apps, get an app, translate, read chat). Each is one catalogue endpoint; its input schema
// merges the endpoint's path, query and body schemas, its output schema is the success
// response, all generated from @svc/types.
import { findEndpoint, type Endpoint, type HttpMethod } from '@svc/types';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/** Where each argument of a tool goes in the HTTP request. */
export type ArgumentLocation = 'path' | 'query' | 'body';

export interface AgentTool {
  /** snake_case, as MCP clients expect. */
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** The HTTP call behind the tool. */
  http: {
    method: HttpMethod;
    path: string;
    operationId: string;
    arguments: Record<string, ArgumentLocation>;
  };
}

interface ToolSpec {
  name: string;
  title: string;
  method: HttpMethod;
  path: string;
  description: string;
  /** Changes state (false for reads and translation). */
  writes?: boolean;
  /** Reaches outside this service (submit fetches the submitted site). */
  openWorld?: boolean;
}

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'search_sites',
    title: 'Search sites',
    method: 'GET',
    path: '/api/sites',
    description:
      'Find shared websites and social profiles by keyword (title, description, URL, tags; works for Chinese text) or by one of the 11 Chinese category tags, sorted by trending score (hot) or newest (recent); 60 per page.',
  },
  {
    name: 'submit_site',
    title: 'Submit a site',
    method: 'POST',
    path: '/api/sites',
    description:
      'Share a website URL (http or https). A new site answers isNew true; a known one has its submit count raised. Title, description, images and 1–3 tags are fetched and assigned shortly after. When the deployment checks a CAPTCHA, captchaToken is required: a token the CAPTCHA widget of the web client’s submit form gives a person (without one the call fails with 403). 5 per minute per IP.',
    writes: true,
    openWorld: true,
  },
  {
    name: 'search_apps',
    title: 'List or search apps',
    method: 'GET',
    path: '/api/v1/apps',
    description:
      'List approved apps of the app store, most downloaded first, optionally filtered by category and app_type or searched with q (name, description, tech tags); paginated with limit (max 100) and offset.',
  },
  {
    name: 'get_app',
    title: 'Get an app',
    method: 'GET',
    path: '/api/v1/apps/{slug}',
    description: 'Full detail of one approved app, addressed by its slug.',
  },
  {
    name: 'translate',
    title: 'Translate text',
    method: 'POST',
    path: '/api/translate',
    description:
      'Translate up to 2000 characters into one of 12 languages (zh-CN, zh-HK, zh-TW, en, es, ar, hi, pt, ja, ko, fr, de); the input language is detected and returned as detectedLang. 20 per minute per IP.',
  },
  {
    name: 'read_chat',
    title: 'Read the chat',
    method: 'GET',
    path: '/api/messages',
    description:
      'The newest messages of the public chat room (limit, default 50, max 100), oldest first; content is plain text.',
  },
];

/**
 * JSON Schema 2020-12 of a zod schema, without the `$schema` line (it is embedded). Only
 * JSON Schema keywords: the OpenAPI metadata of a parameter (`.meta({ param })`, read by
 * zod-openapi) would be an unknown keyword that strict validators refuse, so its
 * description becomes the property's own (it is the longer one, written for callers).
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    override: ({ zodSchema, jsonSchema }) => {
      const param = (jsonSchema as { param?: { description?: string } }).param;
      if (param !== undefined) {
        if (param.description) jsonSchema.description = param.description;
        delete (jsonSchema as { param?: unknown }).param;
      }
      // Outputs stay open to fields added later (as in /openapi.json).
      const def = zodSchema._zod.def as {
        type: string;
        catchall?: { _zod: { def: { type: string } } };
      };
      if (io === 'output' && def.type === 'object' && def.catchall?._zod.def.type !== 'never')
        delete jsonSchema.additionalProperties;
    },
  });
  return rest;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  if (!(schema instanceof z.ZodObject)) throw new Error('tool inputs must be zod objects');
  return schema.shape as Record<string, z.ZodType>;
}

function toolOf(spec: ToolSpec, endpoint: Endpoint): AgentTool {
  const parts: Array<[ArgumentLocation, Record<string, z.ZodType>]> = [
    ['path', objectShape(endpoint.params)],
    ['query', objectShape(endpoint.query)],
    ['body', objectShape(endpoint.body)],
  ];
  const shape: Record<string, z.ZodType> = {};
  const args: Record<string, ArgumentLocation> = {};
  for (const [location, fields] of parts)
    for (const [name, field] of Object.entries(fields)) {
      if (name in shape) throw new Error(`tool ${spec.name}: argument ${name} appears twice`);
      shape[name] = field;
      args[name] = location;
    }
  const successes = Object.entries(endpoint.responses)
    .filter(([status, r]) => Number(status) < 300 && r.schema)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, r]) => r.schema as z.ZodType);
  const output =
    successes.length === 1
      ? toJsonSchema(successes[0]!, 'output')
      : { type: 'object', anyOf: successes.map((s) => toJsonSchema(s, 'output')) };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    // Closed: an argument the tool does not know (a misspelt `query` for `search`) is
    // refused, where the REST endpoint would ignore it and answer something unasked for.
    inputSchema: toJsonSchema(z.strictObject(shape), 'input'),
    outputSchema: output,
    annotations: {
      readOnlyHint: !spec.writes,
      destructiveHint: false,
      idempotentHint: !spec.writes,
      openWorldHint: spec.openWorld ?? false,
    },
    http: {
      method: endpoint.method,
      path: endpoint.path,
      operationId: endpoint.operationId,
      arguments: args,
    },
  };
}

/** The agent tools, from the catalogue. Throws when a tool names an unknown endpoint. */
export function buildAgentTools(specs: readonly ToolSpec[] = TOOL_SPECS): AgentTool[] {
  return specs.map((spec) => {
    const endpoint = findEndpoint(spec.method, spec.path);
    if (!endpoint) throw new Error(`tool ${spec.name}: no endpoint ${spec.method} ${spec.path}`);
    return toolOf(spec, endpoint);
  });
}
