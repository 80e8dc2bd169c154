// The account pages' loaders: who is logged in, or off to /login?next=<this page> (302).
import { ApiError, type SvcClient } from '@svc/client';
import type { AuthUser } from '@svc/types';
import { data, redirect, type RouterContextProvider } from 'react-router';
import { hasSession, serverApi } from '../../lib/api.server';
import { loginHref } from '../../lib/safe-next';

/** The redirect to the login page that comes back here (the path and query of `request`). */
export function toLogin(request: Request): Response {
  const url = new URL(request.url);
  return redirect(loginHref(`${url.pathname}${url.search}`), 302);
}

/** A failed API call in a loader: 401 → log in again; anything else → the error page. */
export function loaderFailure(request: Request, err: unknown): never {
  if (err instanceof ApiError && err.status === 401) throw toLogin(request);
  if (err instanceof ApiError && err.status === 429) throw data(null, { status: 429 });
  throw data(null, { status: 503 });
}

/** The logged-in user and an API client with their session, or a thrown redirect to /login. */
export async function requireUser(
  request: Request,
  context: Readonly<RouterContextProvider>,
): Promise<{ api: SvcClient; user: AuthUser }> {
  if (!hasSession(request)) throw toLogin(request);
  const api = serverApi(request, context);
  try {
    const { user } = await api.auth.me();
    return { api, user };
  } catch (err) {
    return loaderFailure(request, err);
  }
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
