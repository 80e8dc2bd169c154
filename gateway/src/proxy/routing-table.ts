// THE routing table: every public path the gateway forwards, and the service that owns it.
// The API paths first, then the web client, which takes every path the gateway does not
// keep for itself. Kept (never sent to web, answered by own-routes: the document, 404, 405
// or 426): /api and /api/*, /mcp/*, /.well-known/*, /healthz, /readyz, /metrics,
// /openapi.json, /llms.txt, /llms-full.txt, /internal/* — see GATEWAY_SEGMENTS. The
// services' internal endpoints (/internal/*, calls between services) are on no route: the
// gateway forwards only the API prefixes below to a service, never /internal.
import { INTERNAL_PATH_SEGMENT, SITEMAP_FILE_PATH } from '@svc/types';
import type { UpstreamName } from '../config.js';

/**
 * - `exact`:    the path itself only (`/api/translate`).
 * - `subtree`:  paths below it only (`/api/auth/*`, not `/api/auth`).
 * - `self+subtree`: both (`/api/sites` and `/api/sites/*`).
 * - `pattern`:  paths `pattern` matches whole (`/sitemap-{n}.xml`); `path` names them.
 * - `pages`:    every origin-form path (`/…`) outside the gateway's own segments (isPagePath).
 */
export type Match = 'exact' | 'subtree' | 'self+subtree' | 'pattern' | 'pages';

export interface Route {
  /** Public path prefix (or the catalogue's path of a pattern), also the `route` label of the metrics. */
  readonly path: string;
  readonly match: Match;
  readonly upstream: UpstreamName;
  /** With `match: 'pattern'`. */
  readonly pattern?: RegExp;
}

/** Plain HTTP requests. */
export const HTTP_ROUTES: readonly Route[] = [
  { path: '/api/auth', match: 'subtree', upstream: 'auth' },
  { path: '/api/v1', match: 'subtree', upstream: 'app-store' },
  { path: '/api/sites', match: 'self+subtree', upstream: 'sites' },
  { path: '/api/clicks', match: 'subtree', upstream: 'sites' },
  { path: '/api/bookmarks', match: 'self+subtree', upstream: 'sites' },
  { path: '/api/daily-bg', match: 'self+subtree', upstream: 'sites' },
  { path: '/sitemap.xml', match: 'exact', upstream: 'sites' },
  // The files of the sitemap index: sites answers 404 for a number it has no file for.
  { path: '/sitemap-{n}.xml', match: 'pattern', pattern: SITEMAP_FILE_PATH, upstream: 'sites' },
  { path: '/api/moderation/sites', match: 'subtree', upstream: 'sites' },
  { path: '/api/messages', match: 'self+subtree', upstream: 'chat' },
  { path: '/api/moderation/messages', match: 'subtree', upstream: 'chat' },
  { path: '/api/moderation/chat', match: 'subtree', upstream: 'chat' },
  { path: '/api/translate', match: 'exact', upstream: 'translate' },
  // The MCP server (Streamable HTTP, JSON-RPC): one path, every method (POST, GET, DELETE,
  // OPTIONS); not a REST endpoint, so not in the endpoint catalogue (docs/decisions/028-mcp-server.md).
  { path: '/mcp', match: 'exact', upstream: 'mcp' },
  // Last: everything else is a page (`/`, `/site/x`, `/assets/…`, `/favicon.ico`, `/robots.txt`).
  { path: '/', match: 'pages', upstream: 'web' },
];

/**
 * First path segments the gateway keeps, compared case-insensitively and with or without
 * anything after them: web's router (express) matches paths case-insensitively and ignores
 * a trailing slash, so `/Metrics` or `/healthz/` sent there could reach web's own
 * /metrics or /healthz. Unknown paths under them are the gateway's 404 JSON.
 */
export const GATEWAY_SEGMENTS: ReadonlySet<string> = new Set([
  'api',
  'mcp',
  '.well-known',
  'healthz',
  'readyz',
  'metrics',
  'openapi.json',
  'llms.txt',
  'llms-full.txt',
  // The services' calls between themselves: answered 404 here rather than left to web, so
  // no spelling of them leaves the gateway.
  INTERNAL_PATH_SEGMENT,
]);

/**
 * Is this path (no query) one of web's: origin-form (`/…`, not `*` nor an absolute URL),
 * and its first segment, percent-decoded and lower-cased, not one the gateway keeps?
 */
export function isPagePath(path: string): boolean {
  if (path.charCodeAt(0) !== 47 /* '/' */) return false;
  const slash = path.indexOf('/', 1);
  let segment = slash === -1 ? path.slice(1) : path.slice(1, slash);
  if (segment.includes('%')) {
    try {
      segment = decodeURIComponent(segment);
    } catch {
      return false; // not a path any router would take: the gateway's 404
    }
  }
  return !GATEWAY_SEGMENTS.has(segment.toLowerCase());
}

/** WebSocket upgrades (`Upgrade: websocket`); any other upgrade is refused. */
export const WS_ROUTES: readonly Route[] = [{ path: '/api/ws', match: 'exact', upstream: 'realtime' }];

/** The path of a request target without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function matches(route: Route, path: string): boolean {
  if (route.match === 'pages') return isPagePath(path);
  if (route.match === 'pattern') return route.pattern!.test(path);
  if (!path.startsWith(route.path)) return false;
  if (path.length === route.path.length) return route.match !== 'subtree';
  // Only a whole segment counts: /api/sites/x yes, /api/sitesx no.
  return route.match !== 'exact' && path.charCodeAt(route.path.length) === 47; /* '/' */
}

/** The route owning a request target (`/a/b?c`), or undefined. Case-sensitive. */
export function findRoute(routes: readonly Route[], url: string): Route | undefined {
  const path = pathOf(url);
  for (const route of routes) {
    if (matches(route, path)) return route;
  }
  return undefined;
}
