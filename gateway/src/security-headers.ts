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

/**
 * Appends to a flat header list the security headers it does not already name: an
 * upstream's own value always wins (web's pages send their own CSP, Referrer-Policy…; the
 * API services theirs), and the strict API default fills only the gaps. An upstream that
 * sends `Content-Security-Policy-Report-Only` (a policy being tried out) and no enforced
 * one has made its CSP choice: no default CSP is added, which would block the page.
 */
export function appendSecurityHeaders(headers: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < headers.length; i += 2) named.add((headers[i] as string).toLowerCase());
  if (named.has('content-security-policy-report-only')) named.add('content-security-policy');
  for (let i = 0; i < SECURITY_HEADERS.length; i += 2) {
    const name = SECURITY_HEADERS[i] as string;
    if (!named.has(name)) headers.push(name, SECURITY_HEADERS[i + 1] as string);
  }
  return headers;
}
