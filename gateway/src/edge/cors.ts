// CORS for frontends on other origins (CORS_ORIGINS), on `/api` and `/api/*` only: the
// pages (web) share the gateway's origin and need none, the discovery documents have their
// own `Access-Control-Allow-Origin: *`. A listed origin gets its exact value back with
// credentials allowed; any other origin gets no CORS header at all (so the browser keeps
// the answer from its script), and its preflight a 403 JSON. See README.md ("CORS").

/** Methods of the API (`@svc/types` HTTP_METHODS, plus HEAD); a test keeps them in step. */
export const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** Request headers a browser script may send to the API beyond the CORS-safelisted ones. */
export const CORS_ALLOW_HEADERS = 'Content-Type, Authorization, Idempotency-Key, X-Request-Id';
/** Answer headers a browser script may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';
/** How long a browser may reuse a preflight answer (browsers cap it: Chromium at 2 h). */
export const CORS_MAX_AGE_S = 600;

/**
 * Parses CORS_ORIGINS: a comma-separated list of origins, each `http(s)://host[:port]` with
 * no path (not even `/`), query, fragment or credentials. Returns the browsers' serialization
 * (lower-case host, default port dropped), which is what an `Origin` header carries, so a
 * request's Origin is compared as an exact string. Throws on the first bad entry.
 */
export function parseCorsOrigins(raw: string | undefined): string[] {
  const out: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const value = entry.trim();
    if (value === '') continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`"${value}" is not an origin (scheme://host[:port])`);
    }
    const bare = /^https?:\/\/[^/?#@]+$/i.test(value);
    if (!bare || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') {
      throw new Error(`"${value}" is not an origin: give scheme://host[:port], http or https, without a path`);
    }
    if (!out.includes(url.origin)) out.push(url.origin);
  }
  return out;
}

/** Is this request path (no query) under the API namespace: `/api` or `/api/...`? */
export function isApiPath(path: string): boolean {
  return path.startsWith('/api') && (path.length === 4 || path.charCodeAt(4) === 47 /* '/' */);
}

export interface Cors {
  /**
   * Headers (flat list) for an answer to an `/api` request with this Origin: the allow
   * headers for a listed origin, and `Vary: Origin` for every request (the answer depends
   * on the Origin header, so a shared cache must key on it).
   */
  answerHeaders(origin: string | string[] | undefined): readonly string[];
  /** Headers of a preflight answer (204) for a listed origin, undefined for any other. */
  preflightHeaders(origin: string | string[] | undefined): readonly string[] | undefined;
}

const VARY_ONLY: readonly string[] = ['vary', 'Origin'];

/** The CORS policy of a list of origins; undefined when the list is empty (CORS off). */
export function createCors(origins: readonly string[]): Cors | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const listed = (origin: string | string[] | undefined): origin is string =>
    typeof origin === 'string' && allowed.has(origin);
  const answers = new Map<string, readonly string[]>();
  const preflights = new Map<string, readonly string[]>();
  for (const origin of allowed) {
    answers.set(origin, [
      'access-control-allow-origin',
      origin,
      'access-control-allow-credentials',
      'true',
      'access-control-expose-headers',
      CORS_EXPOSE_HEADERS,
      'vary',
      'Origin',
    ]);
    preflights.set(origin, [
      'access-control-allow-origin',
      origin,
      'access-control-allow-credentials',
      'true',
      'access-control-allow-methods',
      CORS_ALLOW_METHODS,
      'access-control-allow-headers',
      CORS_ALLOW_HEADERS,
      'access-control-max-age',
      String(CORS_MAX_AGE_S),
      'vary',
      'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    ]);
  }
  return {
    answerHeaders: (origin) => (listed(origin) ? (answers.get(origin) as readonly string[]) : VARY_ONLY),
    preflightHeaders: (origin) => (listed(origin) ? preflights.get(origin) : undefined),
  };
}

/** A CORS preflight: OPTIONS with an Origin and an Access-Control-Request-Method. */
export function isPreflight(method: string | undefined, headers: { origin?: string | string[]; [k: string]: unknown }): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}
