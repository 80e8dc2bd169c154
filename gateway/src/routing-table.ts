// THE routing table: every public path the gateway forwards, and the service that owns it.
// Paths the gateway answers itself (/healthz, /readyz, /metrics, /openapi.json, /llms.txt,
// /llms-full.txt, /.well-known/*) are not here: they fall through to own-routes.
import type { UpstreamName } from './config.js';

/**
 * - `exact`:    the path itself only (`/api/translate`).
 * - `subtree`:  paths below it only (`/api/auth/*`, not `/api/auth`).
 * - `self+subtree`: both (`/api/sites` and `/api/sites/*`).
 */
export type Match = 'exact' | 'subtree' | 'self+subtree';

export interface Route {
  /** Public path prefix, also the `route` label of the metrics. */
  readonly path: string;
  readonly match: Match;
  readonly upstream: UpstreamName;
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
  { path: '/api/messages', match: 'self+subtree', upstream: 'chat' },
  { path: '/api/translate', match: 'exact', upstream: 'translate' },
];

/** WebSocket upgrades (`Upgrade: websocket`); any other upgrade is refused. */
export const WS_ROUTES: readonly Route[] = [{ path: '/api/ws', match: 'exact', upstream: 'realtime' }];

/** The path of a request target without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function matches(route: Route, path: string): boolean {
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
