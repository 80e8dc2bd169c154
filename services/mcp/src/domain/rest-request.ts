// A tool call as the REST request that carries it out: each argument goes where the tool
// says (path segment, query parameter or JSON body field), as the endpoint reads it.
import type { AgentTool } from '@svc/discovery';

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
  const query = new URLSearchParams();
  let body: Record<string, unknown> | undefined;
  const segments: Record<string, string> = {};
  for (const [name, location] of Object.entries(where)) {
    if (location === 'body') body ??= {};
    const value = args[name];
    if (value === undefined) continue;
    if (location === 'body') body![name] = value;
    else if (location === 'query') query.append(name, String(value as Scalar));
    else segments[name] = segmentOf(String(value as Scalar));
  }
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => segments[name] ?? '');
  const search = query.toString();
  return { method, path: search ? `${filled}?${search}` : filled, ...(body ? { body } : {}) };
}

/**
 * One path segment. A segment of dots would be a step up or nowhere to any URL parser on
 * the way (`/api/v1/apps/..`): it is escaped, so it reaches the endpoint as the value it is.
 */
function segmentOf(value: string): string {
  const encoded = encodeURIComponent(value);
  return /^\.+$/.test(encoded) ? encoded.replace(/\./g, '%2E') : encoded;
}
