// Header hygiene shared by the HTTP and WebSocket proxies.
import { STATUS_CODES } from 'node:http';
import type { ClientInfo } from '../edge/client-ip.js';
import { SECURITY_HEADERS, appendMissingSecurityHeaders, securityHeaderBit } from '../edge/security-headers.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and what undici refuses to send. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'http2-settings',
]);

/**
 * Headers the gateway sets itself: a caller's values are dropped, not appended to
 * (services trust only the gateway).
 */
const GATEWAY_OWNED = new Set(['x-request-id', 'forwarded', 'x-real-ip']);

/** Extra hop-by-hop names listed in a Connection header (`Connection: close, X-Foo`). */
function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  // What Node and most servers send: nothing listed (spares a split per proxied answer).
  if (value === 'keep-alive' || value === 'close' || value === 'Keep-Alive') return undefined;
  let set: Set<string> | undefined;
  for (const token of (Array.isArray(value) ? value.join(',') : value).split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '' && name !== 'close' && name !== 'keep-alive') (set ??= new Set()).add(name);
  }
  return set;
}

/**
 * The upstream request's headers as a flat [name, value, ...] list: the caller's headers
 * (Host, Cookie, Authorization... untouched, original case and order) minus hop-by-hop and
 * forwarding headers, plus the gateway's X-Request-Id and X-Forwarded-*.
 * `keepUpgrade` keeps Connection/Upgrade (the WebSocket handshake needs them).
 * `traceparent` (tracing on) replaces the caller's: the upstream's span is the child of the
 * gateway's server span, which is the caller's child (`tracestate` is passed on as is).
 */
export function upstreamRequestHeaders(
  rawHeaders: string[],
  connection: string | string[] | undefined,
  requestId: string,
  client: ClientInfo,
  keepUpgrade = false,
  traceparent?: string,
): string[] {
  const listed = connectionTokens(connection);
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (keepUpgrade && (lower === 'connection' || lower === 'upgrade')) {
      out.push(name, rawHeaders[i + 1] as string);
      continue;
    }
    if (HOP_BY_HOP.has(lower) || GATEWAY_OWNED.has(lower) || lower.startsWith('x-forwarded-')) continue;
    if (listed !== undefined && listed.has(lower)) continue;
    if (traceparent !== undefined && lower === 'traceparent') continue;
    out.push(name, rawHeaders[i + 1] as string);
  }
  if (traceparent !== undefined) out.push('traceparent', traceparent);
  out.push('x-request-id', requestId, 'x-forwarded-for', client.ip, 'x-forwarded-proto', client.proto);
  if (client.host !== undefined) out.push('x-forwarded-host', client.host);
  return out;
}

/**
 * The client response's headers from the upstream's raw list (bytes kept as latin1, so
 * nothing is re-encoded), minus hop-by-hop headers, with the gateway's X-Request-Id, then
 * `extra` (the CORS headers of an /api answer: they replace an upstream's header of the same
 * name, except Vary, which is added to), then the security headers the upstream did not set.
 */
export function clientResponseHeaders(
  raw: ReadonlyArray<Buffer | string>,
  requestId: string,
  keepUpgrade = false,
  extra?: readonly string[],
): string[] {
  // One pass over the upstream's list: each name lower-cased once, the security headers it
  // already has gathered as bits (edge/security-headers.ts), no Set per answer. This runs for
  // every proxied answer (docs/decisions/014-gateway-cost-against-nginx.md).
  const out: string[] = [];
  let listed: Set<string> | undefined;
  let replaced: Set<string> | undefined;
  let present = 0;
  if (extra !== undefined) {
    for (let i = 0; i < extra.length; i += 2) {
      const name = (extra[i] as string).toLowerCase();
      if (name !== 'vary') (replaced ??= new Set()).add(name);
    }
  }
  for (let i = 0; i < raw.length; i += 2) {
    const nameRaw = raw[i] as Buffer | string;
    const name = typeof nameRaw === 'string' ? nameRaw : nameRaw.toString('latin1');
    const valueRaw = raw[i + 1] as Buffer | string;
    const value = typeof valueRaw === 'string' ? valueRaw : valueRaw.toString('latin1');
    const lower = name.toLowerCase();
    if (lower === 'connection') {
      if (keepUpgrade) out.push(name, value);
      else listed = connectionTokens(value);
      continue;
    }
    if (keepUpgrade && lower === 'upgrade') {
      out.push(name, value);
      continue;
    }
    if (HOP_BY_HOP.has(lower) || lower === 'x-request-id') continue;
    if (replaced !== undefined && replaced.has(lower)) continue;
    out.push(name, value);
    present |= securityHeaderBit(lower);
  }
  let headers = out;
  if (listed !== undefined) {
    // Rare (an upstream naming extra hop-by-hop headers): filter and recount the bits.
    headers = [];
    present = 0;
    for (let i = 0; i < out.length; i += 2) {
      const lower = (out[i] as string).toLowerCase();
      if (!listed.has(lower)) {
        headers.push(out[i] as string, out[i + 1] as string);
        present |= securityHeaderBit(lower);
      }
    }
  }
  headers.push('x-request-id', requestId);
  // The CORS headers of an /api answer name no security header: no bits to add for them.
  if (extra !== undefined) for (const h of extra) headers.push(h);
  return appendMissingSecurityHeaders(headers, present);
}

/** A JSON error answer's body and headers (flat list). */
export function jsonError(
  status: number,
  message: string,
  requestId: string,
  extra?: readonly string[],
): { body: string; headers: string[] } {
  const body = JSON.stringify({ error: message });
  return {
    body,
    headers: [
      'content-type',
      'application/json; charset=utf-8',
      'content-length',
      String(Buffer.byteLength(body)),
      'cache-control',
      'no-store',
      'x-request-id',
      requestId,
      ...(extra ?? []),
      ...SECURITY_HEADERS,
    ],
  };
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The gateway's own error answer on a page path (web down, too slow, a body too large): a
 * small HTML page, as a browser expects there, with the same headers as the JSON one.
 */
export function htmlError(
  status: number,
  message: string,
  requestId: string,
  extra?: readonly string[],
): { body: string; headers: string[] } {
  const text = escapeHtml(message);
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${status} · ${text}</title></head><body><main><h1>${text}</h1>` +
    `<p>This page could not be loaded. Please try again in a moment.</p>` +
    `<p><a href="/">Home</a></p><p><small>Request ${escapeHtml(requestId)}</small></p></main></body></html>`;
  const json = jsonError(status, message, requestId, extra);
  json.headers[1] = 'text/html; charset=utf-8';
  json.headers[3] = String(Buffer.byteLength(body));
  return { body, headers: json.headers };
}

/** The error answer for a route: HTML on page paths (web), JSON on the API. */
export function errorAnswer(
  upstream: string,
  status: number,
  message: string,
  requestId: string,
  extra?: readonly string[],
): { body: string; headers: string[] } {
  return upstream === 'web' ? htmlError(status, message, requestId, extra) : jsonError(status, message, requestId, extra);
}

/**
 * A whole JSON error answer for a raw socket (a client error before any request, a refused
 * upgrade), ending with `Connection: close`.
 */
export function rawJsonError(status: number, message: string, requestId: string, extra: string[] = []): string {
  const { body, headers } = jsonError(status, message, requestId);
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
  const all = [...headers, ...extra, 'connection', 'close'];
  for (let i = 0; i < all.length; i += 2) head += `${all[i]}: ${all[i + 1]}\r\n`;
  return `${head}\r\n${body}`;
}
