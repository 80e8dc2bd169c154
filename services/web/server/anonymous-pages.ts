// The express side of the page cache (page-cache.ts): anonymous GET/HEAD page requests are
// rendered through React Router's fetch handler once per key and TTL, then served stored
// and compressed. Readers with a session, form posts, client navigations' `.data` requests
// and the route manifest always go to the normal handler.
import zlib from 'node:zlib';
import { SESSION_COOKIE } from '@svc/client';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from 'react-router';
import { cacheKey, PageCache, pickEncoding, type CachedPage, type RenderedPage } from './page-cache.js';

/** Largest number of stored pages (each ~10–20 KB compressed twice). */
const MAX_ENTRIES = 500;

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function isCacheable(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (cookieOf(req.headers.cookie, SESSION_COOKIE) !== undefined) return false;
  return !req.path.endsWith('.data') && req.path !== '/__manifest';
}

function toFetchRequest(req: Request): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, { method: 'GET', headers });
}

async function toRendered(response: globalThis.Response): Promise<RenderedPage> {
  const headers: [string, string][] = [];
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers.push([name, value]);
  for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
}

function sendRendered(req: Request, res: Response, page: RenderedPage): void {
  res.status(page.status);
  for (const [name, value] of page.headers) {
    if (name === 'content-length' || name === 'transfer-encoding') continue;
    res.append(name, value);
  }
  res.setHeader('x-page-cache', 'bypass');
  res.end(req.method === 'HEAD' ? undefined : page.body);
}

function sendCached(req: Request, res: Response, page: CachedPage, state: 'hit' | 'miss'): void {
  const encoding = pickEncoding(req.headers['accept-encoding']);
  const body = encoding === 'br' ? page.br : encoding === 'gzip' ? page.gzip : zlib.gunzipSync(page.gzip);
  res.status(page.status);
  for (const [name, value] of page.headers) {
    if (name === 'vary') continue;
    res.append(name, value);
  }
  res.setHeader('vary', 'Cookie, Accept-Language, Accept-Encoding');
  if (encoding !== 'identity') res.setHeader('content-encoding', encoding);
  res.setHeader('content-length', String(body.length));
  res.setHeader('x-page-cache', state);
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function anonymousPageCache(
  build: ServerBuild,
  mode: string,
  contextFor: (req: Request) => RouterContextProvider,
  ttlMs: number,
): RequestHandler {
  const render = createRequestHandler(build, mode);
  const cache = new PageCache({ ttlMs, maxEntries: MAX_ENTRIES });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isCacheable(req)) return next();
    const key = cacheKey({
      url: req.originalUrl,
      langCookie: cookieOf(req.headers.cookie, 'lang'),
      acceptLanguage: req.headers['accept-language'],
    });
    const hit = cache.get(key);
    if (hit) return sendCached(req, res, hit, 'hit');
    cache
      .render(key, async () => toRendered(await render(toFetchRequest(req), contextFor(req))))
      .then(({ page, cached }) => (cached ? sendCached(req, res, cached, 'miss') : sendRendered(req, res, page)))
      .catch(next);
  };
}
