// Every discovery document rendered once into bytes with a content hash, ready to serve
// with ETag / Cache-Control (the gateway builds them at start). Same input, same bytes.
import { createHash } from 'node:crypto';
import { ENDPOINTS, type Endpoint } from '@svc/types';
import { buildAiPlugin, buildMcpManifest } from './agent-manifests.js';
import { buildAgentTools } from './agent-tools.js';
import { buildLlmsFullTxt, buildLlmsTxt } from './llms-txt.js';
import { buildOpenApi } from './openapi.js';

export interface DiscoveryDocument {
  /** Public path, e.g. `/openapi.json`. */
  path: string;
  contentType: string;
  body: Buffer;
  /** Strong validator: a hash of `body`, quoted. */
  etag: string;
}

export interface DiscoveryOptions {
  /** Public origin the documents point at (`https://svc.example`); no trailing slash needed. */
  baseUrl: string;
  endpoints?: readonly Endpoint[];
}

export const DISCOVERY_PATHS = [
  '/openapi.json',
  '/llms.txt',
  '/llms-full.txt',
  '/.well-known/ai-plugin.json',
  '/.well-known/mcp.json',
] as const;
export type DiscoveryPath = (typeof DISCOVERY_PATHS)[number];

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

function document(path: DiscoveryPath, contentType: string, text: string): DiscoveryDocument {
  const body = Buffer.from(text, 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return { path, contentType, body, etag };
}

/** `https://svc.example/` → `https://svc.example`; refuses anything but an http(s) URL. */
export function normaliseBaseUrl(raw: string): string {
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`base URL must be http(s): ${raw}`);
  if (url.search || url.hash) throw new Error(`base URL must have no query or fragment: ${raw}`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The five documents, in DISCOVERY_PATHS order. */
export function buildDiscoveryDocuments(options: DiscoveryOptions): DiscoveryDocument[] {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const endpoints = options.endpoints ?? ENDPOINTS;
  const openapi = buildOpenApi({ baseUrl, endpoints });
  const tools = buildAgentTools();
  const llms = { baseUrl, openapi, endpoints, tools };
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return [
    document('/openapi.json', JSON_TYPE, json(openapi)),
    document('/llms.txt', TEXT_TYPE, buildLlmsTxt(llms)),
    document('/llms-full.txt', TEXT_TYPE, buildLlmsFullTxt(llms)),
    document('/.well-known/ai-plugin.json', JSON_TYPE, json(buildAiPlugin(baseUrl, tools))),
    document('/.well-known/mcp.json', JSON_TYPE, json(buildMcpManifest(baseUrl, tools))),
  ];
}
