// Query strings and paths: values are encoded, unset values left out.

export type QueryValue = string | number | boolean | null | undefined;

/** `?a=1&b=x` from the defined values of `query`, or '' when there are none. */
export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** One path segment, encoded so a slug or id can never change the path it is part of. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** `http(s)://host[/prefix]` without a trailing slash; refuses anything else. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be http:// or https://, got ${baseUrl}`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The WebSocket URL of a path on the same origin (http → ws, https → wss). */
export function toWebSocketUrl(baseUrl: string, path: string): string {
  return `${normaliseBaseUrl(baseUrl).replace(/^http/, 'ws')}${path}`;
}
