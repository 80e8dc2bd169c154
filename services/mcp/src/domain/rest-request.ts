// A tool call as the REST request that carries it out: each argument goes where the tool
// says (path segment, query parameter or JSON body field), as the endpoint reads it.
import type { AgentTool } from '@svc/discovery';
import { isWellFormedText } from '@svc/types';

export interface RestRequest {
  method: string;
  /** Path and query, percent-encoded, sent as it stands (no dot-segment resolution). */
  path: string;
  /** The JSON body, for endpoints that read one. */
  body?: Record<string, unknown>;
}

type Scalar = string | number | boolean;

export function restRequestOf(tool: Pick<AgentTool, 'http'>, args: Record<string, unknown>): RestRequest {
  const { method, path, arguments: where } = tool.http;
  const query: string[] = [];
  let body: Record<string, unknown> | undefined;
  const segments: Record<string, string> = {};
  for (const [name, location] of Object.entries(where)) {
    if (location === 'body') body ??= {};
    const value = args[name];
    if (value === undefined) continue;
    if (location === 'body') body![name] = value;
    else if (location === 'query') query.push(`${percentEncoded(name)}=${percentEncoded(String(value as Scalar))}`);
    else segments[name] = segmentOf(String(value as Scalar));
  }
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => segments[name] ?? '');
  const search = query.join('&');
  return { method, path: search ? `${filled}?${search}` : filled, ...(body ? { body } : {}) };
}

/**
 * One path segment. A segment of dots would be a step up or nowhere to any URL parser on
 * the way (`/api/v1/apps/..`): it is escaped, so it reaches the endpoint as the value it is.
 */
function segmentOf(value: string): string {
  const encoded = percentEncoded(value);
  return /^\.+$/.test(encoded) ? encoded.replace(/\./g, '%2E') : encoded;
}

/**
 * encodeURIComponent, except that a lone surrogate (JSON can carry one; encodeURIComponent
 * throws on it, URLSearchParams would quietly turn it into U+FFFD) is written as the bytes
 * it would be in WTF-8. The endpoint then sees what REST would: a path or query that does not
 * decode to UTF-8, which it refuses with its 400.
 */
export function percentEncoded(value: string): string {
  if (isWellFormedText(value)) return encodeURIComponent(value);
  let out = '';
  // for…of yields a surrogate pair as one character, a lone surrogate as one code unit.
  for (const char of value) {
    const unit = char.charCodeAt(0);
    if (char.length === 2 || unit < 0xd800 || unit > 0xdfff) {
      out += encodeURIComponent(char);
      continue;
    }
    for (const byte of [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)])
      out += `%${byte.toString(16).toUpperCase()}`;
  }
  return out;
}
