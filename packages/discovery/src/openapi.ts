// /openapi.json: OpenAPI 3.1 generated from the endpoint catalogue and the zod schemas of
// @svc/types (zod-openapi renders the schemas; nothing here is written by hand but the
// prose). Same input, same bytes: the order follows the catalogue.
import {
  ENDPOINTS,
  MAX_JSON_BODY_BYTES,
  SESSION_COOKIE_NAME,
  ClientMessage,
  ServerMessage,
  EVENT_HISTORY_MAX_EVENTS,
  EVENT_HISTORY_MIN_AGE_MS,
  EVENT_HISTORY_MIN_EVENTS,
  EVENT_ID_PATTERN,
  WS_CLOSE_BAD_RESUME,
  WS_CLOSE_SERVICE_RESTART,
  WS_PATH,
  WS_RESUME_PARAM,
  type AuthMode,
  type Endpoint,
  type EndpointResponse,
  type ServiceName,
} from '@svc/types';
import {
  createDocument,
  type CreateDocumentOptions,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import { z } from 'zod';
import { describeAuth, describeRateLimit } from './endpoint-prose.js';
import {
  headerComponents,
  headerRefs,
  RATE_LIMIT_HEADER_NAMES,
  type HeaderName,
} from './response-headers.js';
import { componentSchemas } from './schema-names.js';

export const API_TITLE = 'Svc platform API';
/** Site-sharing interface v1.3 (its change history); the app store is the stable /api/v1. */
export const API_VERSION = '1.3.0';

export const SECURITY_SCHEMES = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE_NAME,
    description:
      'Session of both interfaces: an ES256 JWT in the HttpOnly cookie set by POST /api/auth/verify (30 days).',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "App-store API key (`Authorization: Bearer svc_live_…`), created by an app's author with POST /api/v1/apps/{slug}/keys; it acts as that author on the endpoints that accept it.",
  },
} as const;

type SecurityRequirement = Record<string, string[]>;

const SECURITY: Record<AuthMode, SecurityRequirement[]> = {
  none: [],
  // `{}` first: the session is optional.
  'optional-session': [{}, { sessionCookie: [] }],
  session: [{ sessionCookie: [] }],
  'session-or-key': [{ sessionCookie: [] }, { apiKey: [] }],
};

/** One tag per owning service, in this order. */
export const TAGS: ReadonlyArray<{ service: ServiceName; name: string; description: string }> = [
  {
    service: 'auth',
    name: 'auth',
    description: 'Email-code login and the `sn_token` session shared by both interfaces.',
  },
  {
    service: 'app-store',
    name: 'app-store',
    description:
      'Application listing interface under `/api/v1`: apps, reports, installs, API keys.',
  },
  {
    service: 'sites',
    name: 'sites',
    description:
      'Site sharing: sites, tags, boosts, claims, clicks, bookmarks, daily background, sitemap.',
  },
  { service: 'chat', name: 'chat', description: 'The public chat room.' },
  { service: 'translate', name: 'translate', description: 'AI translation between 12 languages.' },
  {
    service: 'realtime',
    name: 'realtime',
    description:
      'The WebSocket channel of real-time events, each with an `id`; reconnect with `?last_event_id=` to resume.',
  },
  {
    service: 'gateway',
    name: 'discovery',
    description: 'Machine-readable descriptions of this API, served by the gateway.',
  },
];
const tagOf = (service: ServiceName) => TAGS.find((t) => t.service === service)?.name ?? service;

const DESCRIPTION = [
  'Both public interfaces of the platform, served from one origin: the site-sharing API',
  '(sites, chat, translation, email-code login, bookmarks, real-time channel) and the',
  'application listing API under `/api/v1`.',
  '',
  '- **Errors**: every error is JSON `{ "error": "<message>" }`; validation errors (400) add',
  '  `details`, the list of failed checks (`code`, `path`, `message` each). Nothing answers HTML.',
  '- **Authentication**: most endpoints are public. Email-code login (`/api/auth/send-code`, then',
  `  \`/api/auth/verify\`) sets the HttpOnly \`${SESSION_COOKIE_NAME}\` cookie, the session of both interfaces;`,
  '  app-store endpoints marked so also accept an app API key as `Authorization: Bearer`.',
  '  Without a valid session a protected endpoint answers 401 `{ "error": "Authentication required" }`.',
  '- **Rate limits**: a limited endpoint answers 429 `{ "error": "Too many requests" }` with',
  '  `Retry-After`; its answers carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
  '  Limits are per client IP unless stated otherwise.',
  '- **Outages**: when PostgreSQL or Redis is unreachable, endpoints that need them answer 503',
  '  `{ "error": "Service temporarily unavailable" }` and recover by themselves.',
  `- **Bodies**: UTF-8 JSON, at most ${MAX_JSON_BODY_BYTES / 1024} KiB (413 beyond, on any path); a body that is`,
  '  not JSON or cannot be decoded (another charset, an unknown `Content-Encoding`) is a 400, and so',
  '  is a NUL character (U+0000) anywhere in a path, query string or body.',
  '- **Text**: well-formed Unicode. A JSON string holding an unpaired surrogate escape (`"\\ud800"`),',
  '  a body whose bytes are not UTF-8, or a path or query that does not percent-decode to UTF-8 is a',
  '  400 `{ "error": "Invalid request: text must be valid Unicode" }`. Every character limit counts',
  '  Unicode code points: 200 emoji are 200 characters (as JSON Schema\'s `maxLength` counts).',
  '- **Connections**: the headers and the body of a request must arrive within 10 s each, or the answer',
  '  is 408 `{ "error": "Request timeout" }` and the connection closes. One client address may hold',
  '  256 open connections; a request on one more is answered 429 with `Retry-After` and closed.',
  '- **Request ids**: every response carries `X-Request-Id`.',
  `- **Real-time**: \`${WS_PATH}\` upgrades to a WebSocket without authentication; the server sends`,
  '  `{ "id", "event", "payload" }` messages (`new_message`, `site_update`, `like`, `message_deleted`;',
  '  schema `ServerMessage`), pings every 30 s, and answers `{ "event": "ping" }` with a `pong`.',
  "  `id` is the event's place in one ordered stream, the same on every server (`<ms>-<seq>`; compare",
  `  ms, then seq). **Resume**: connect to \`${WS_PATH}?${WS_RESUME_PARAM}=<id>\` with the last id seen to get`,
  '  every later event, in order and exactly once, then the live ones. The history kept for this holds',
  `  the newest ${EVENT_HISTORY_MIN_EVENTS.toLocaleString('en')} events or those of the last ${EVENT_HISTORY_MIN_AGE_MS / 60_000} minutes, whichever is more (at most`,
  `  ${EVENT_HISTORY_MAX_EVENTS.toLocaleString('en')}); from an older id the first message is \`{ "event": "resync" }\`: re-read the lists you`,
  '  show. A malformed id, or one newer than any event, gets `{ "event": "error", "payload": { "error" } }`',
  `  and close code ${WS_CLOSE_BAD_RESUME}: reconnect without it and re-read. On close 1012 (server restart) reconnect after`,
  '  a short random delay, with your last id.',
  '- Timestamps are ISO 8601 UTC strings.',
].join('\n');

const JSON_TYPE = 'application/json';

/** Schema of a non-JSON body (the catalogue gives only its media type). */
function rawBodySchema(contentType: string): Record<string, unknown> {
  // contentMediaType names one media type; a range (`image/*`) stays in the content key only.
  if (contentType.startsWith('image/'))
    return contentType.includes('*')
      ? { type: 'string' }
      : { type: 'string', contentMediaType: contentType };
  if (contentType === JSON_TYPE) return { type: 'object' };
  return { type: 'string' };
}

function response(
  endpoint: Endpoint,
  status: number,
  r: EndpointResponse,
): ZodOpenApiResponseObject {
  const headers: HeaderName[] = ['X-Request-Id'];
  const success = status < 400;
  if (endpoint.rateLimit && (success || status === 429)) headers.push(...RATE_LIMIT_HEADER_NAMES);
  if (status === 429) headers.push('Retry-After');
  if (r.cookie) headers.push('Set-Cookie');
  if (r.attachment) headers.push('Content-Disposition');
  const out: ZodOpenApiResponseObject = {
    description: r.description,
    headers: headerRefs(headers),
  };
  if (status === 503)
    out.headers = {
      ...(out.headers as object),
      'Retry-After': {
        description: 'Seconds to wait before trying again (when a data store is down).',
        required: false,
        schema: { type: 'integer', minimum: 0 },
      },
    };
  if (r.schema) out.content = { [r.contentType ?? JSON_TYPE]: { schema: r.schema } };
  else if (r.contentType)
    out.content = { [r.contentType]: { schema: rawBodySchema(r.contentType) } };
  return out;
}

/**
 * OpenAPI has no WebSocket messages: they go in an extension of GET /api/ws, as JSON
 * Schemas generated from the same zod unions the realtime service uses.
 */
const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12' });
  return rest;
};
const WEBSOCKET_MESSAGES = {
  serverMessages: jsonSchema(ServerMessage),
  clientMessages: jsonSchema(ClientMessage),
  resume: {
    queryParameter: WS_RESUME_PARAM,
    eventId: { pattern: EVENT_ID_PATTERN.source, order: 'milliseconds, then sequence, as numbers' },
    description:
      'Every event carries `id`. Reconnect with the last id seen: every later event is sent in order, exactly once, then live events. From an id older than the kept history the first message is `resync` (re-read what you show); a malformed or future id gets an `error` message and the close code below.',
    history: {
      minEvents: EVENT_HISTORY_MIN_EVENTS,
      minAgeSeconds: EVENT_HISTORY_MIN_AGE_MS / 1000,
      maxEvents: EVENT_HISTORY_MAX_EVENTS,
      description:
        'An event is kept while it is one of the newest minEvents or younger than minAgeSeconds, whichever keeps more, but never more than maxEvents.',
    },
    closeCodes: {
      [WS_CLOSE_SERVICE_RESTART]:
        'Server restart: reconnect after a short random delay, with the last id',
      [WS_CLOSE_BAD_RESUME]:
        'Resume id malformed or newer than any event: reconnect without it and re-read',
      1009: 'A client frame over 1 KiB',
      1013: 'The history could not be read (try again later, with the same id)',
    },
  },
};

function operation(endpoint: Endpoint): ZodOpenApiOperationObject {
  const requestParams: ZodOpenApiOperationObject['requestParams'] = {};
  if (endpoint.params) requestParams.path = endpoint.params;
  if (endpoint.query) requestParams.query = endpoint.query;
  if (endpoint.headers) requestParams.header = endpoint.headers;
  const description = [describeAuth(endpoint), describeRateLimit(endpoint)]
    .filter((line) => line !== undefined)
    .join('\n\n');
  const op: ZodOpenApiOperationObject = {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description,
    tags: [tagOf(endpoint.service)],
    security: SECURITY[endpoint.auth],
    responses: Object.fromEntries(
      Object.entries(endpoint.responses)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([status, r]) => [status, response(endpoint, Number(status), r)]),
    ),
  };
  if (endpoint.params || endpoint.query || endpoint.headers) op.requestParams = requestParams;
  if (endpoint.body)
    op.requestBody = { required: true, content: { [JSON_TYPE]: { schema: endpoint.body } } };
  if (endpoint.rateLimit) op['x-rate-limit'] = endpoint.rateLimit;
  if (endpoint.path === WS_PATH) op['x-websocket'] = WEBSOCKET_MESSAGES;
  return op;
}

/**
 * zod's output of a plain (stripping) object never has unknown keys, so zod-openapi renders
 * it with `additionalProperties: false`. Responses stay open here instead: a client must
 * accept fields added later. Strict objects (`z.strictObject`) keep the `false`. This also
 * makes input and output renderings equal, so each record is one component.
 */
const keepResponsesOpen: NonNullable<CreateDocumentOptions['override']> = ({
  jsonSchema,
  zodSchema,
  io,
}) => {
  const def = zodSchema._zod.def as {
    type: string;
    catchall?: { _zod: { def: { type: string } } };
  };
  if (io === 'output' && def.type === 'object' && def.catchall?._zod.def.type !== 'never')
    delete jsonSchema.additionalProperties;
};

export interface OpenApiOptions {
  /** Public origin of the deployment (the `servers` entry), e.g. `https://svc.example`. */
  baseUrl: string;
  endpoints?: readonly Endpoint[];
}

/** The OpenAPI 3.1 document of every catalogue endpoint, as a plain object. */
export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const endpoints = options.endpoints ?? ENDPOINTS;
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const endpoint of endpoints) {
    paths[endpoint.path] ??= {};
    paths[endpoint.path]![endpoint.method.toLowerCase()] = operation(endpoint);
  }
  const usedTags = new Set(endpoints.map((e) => tagOf(e.service)));
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: { title: API_TITLE, version: API_VERSION, description: DESCRIPTION },
      servers: [{ url: options.baseUrl, description: 'This deployment' }],
      tags: TAGS.filter((t) => usedTags.has(t.name)).map(({ name, description }) => ({
        name,
        description,
      })),
      paths,
      components: {
        schemas: componentSchemas(endpoints),
        headers: headerComponents(),
        securitySchemes: SECURITY_SCHEMES,
      },
    },
    { override: keepResponsesOpen },
  );
  return document as unknown as Record<string, unknown>;
}
