// Security headers on every answer of the origin, proxied or the gateway's own, set by
// helmet with a configuration for an API rather than for HTML pages (OWASP REST Security
// Cheat Sheet): nothing here is meant to run scripts, load sub-resources or be framed, and
// no answer may be sniffed into another type. A service that sends its own value of one of
// them (a different CSP, say) keeps it: web's pages send their own CSP and headers, and
// these are only the default where an answer has none.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** Express middleware for the gateway's own routes. */
export const applySecurityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  xFrameOptions: { action: 'deny' },
  // Browsers ignore it over plain HTTP (npm start); behind TLS it pins HTTPS for a year.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
});

/**
 * The same headers as a flat [name, value, ...] list, recorded once from helmet. The proxy
 * appends them to the upstream's raw header list: setting them on the response before
 * writeHead would make Node collapse an upstream's repeated headers (two Set-Cookie).
 */
export const SECURITY_HEADERS: readonly string[] = (() => {
  const recorded: string[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => recorded.push(name.toLowerCase(), String(value)),
    removeHeader: () => {},
  };
  applySecurityHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return recorded;
})();

/** Bit per security header (lower-case name), so a response's set is one integer, not a Set. */
const SECURITY_BITS: ReadonlyMap<string, number> = new Map(
  Array.from({ length: SECURITY_HEADERS.length / 2 }, (_, i) => [SECURITY_HEADERS[2 * i] as string, 1 << i]),
);
const CSP_BIT = SECURITY_BITS.get('content-security-policy') ?? 0;

/**
 * The security headers a header of this (lower-case) name stands for: its own bit, the CSP
 * bit for `content-security-policy-report-only` (a policy being tried out: no default CSP
 * is added, which would block the page), else 0. OR the results over a response's names.
 */
export function securityHeaderBit(lowerName: string): number {
  const bit = SECURITY_BITS.get(lowerName);
  if (bit !== undefined) return bit;
  return lowerName === 'content-security-policy-report-only' ? CSP_BIT : 0;
}

/** Appends the security headers whose bits are not in `present` (see securityHeaderBit). */
export function appendMissingSecurityHeaders(headers: string[], present: number): string[] {
  for (let i = 0; i < SECURITY_HEADERS.length; i += 2) {
    if ((present & (1 << (i >> 1))) === 0) headers.push(SECURITY_HEADERS[i] as string, SECURITY_HEADERS[i + 1] as string);
  }
  return headers;
}

/**
 * Appends to a flat header list the security headers it does not already name: an
 * upstream's own value always wins (web's pages send their own CSP, Referrer-Policy…; the
 * API services theirs), and the strict API default fills only the gaps. An upstream that
 * sends `Content-Security-Policy-Report-Only` (a policy being tried out) and no enforced
 * one has made its CSP choice: no default CSP is added, which would block the page.
 */
export function appendSecurityHeaders(headers: string[]): string[] {
  let present = 0;
  for (let i = 0; i < headers.length; i += 2) present |= securityHeaderBit((headers[i] as string).toLowerCase());
  return appendMissingSecurityHeaders(headers, present);
}
