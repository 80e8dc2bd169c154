// The API as the server sees it while rendering a page: @svc/client against the gateway,
// with the reader's session cookie and address passed on (the gateway trusts this
// service's X-Forwarded-For: TRUST_PROXY; per-client limits stay per reader).
import { SESSION_COOKIE, SvcClient } from '@svc/client';
import type { RouterContextProvider } from 'react-router';
import { readCookie } from './cookies';
import { webRequest } from './request-context';

export function serverApi(request: Request, context: Readonly<RouterContextProvider>): SvcClient {
  const ctx = context.get(webRequest);
  return new SvcClient({
    baseUrl: ctx.apiBaseUrl,
    sessionToken: readCookie(request.headers.get('cookie'), SESSION_COOKIE),
    timeoutMs: 10_000,
    headers: { 'x-forwarded-for': ctx.clientIp, 'x-request-id': ctx.requestId, 'user-agent': 'svc-web' },
  });
}

/** True when the reader sent a session cookie at all (no cookie: no /me call). */
export function hasSession(request: Request): boolean {
  return readCookie(request.headers.get('cookie'), SESSION_COOKIE) !== undefined;
}
