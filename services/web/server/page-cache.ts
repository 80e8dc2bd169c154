// A short-lived cache of whole pages for readers without a session (the "micro-cache" of
// busy sites): a page rendered for one anonymous reader is served, already compressed, to
// the next ones for a second or two. Rendering costs 10–40 ms of CPU (bench/README.md, "Web
// client"); serving a stored page costs well under 1 ms.
//
// What makes it safe: anonymous pages hold nothing about the reader (the session user,
// boost credits and the like come from the browser after load), the key holds everything
// the render reads (URL, language cookie, Accept-Language), and only 200/404 HTML is kept.
// A stored page cannot keep its CSP nonce (a nonce must not be reused), so its policy names
// the hashes of its inline scripts instead (`hashPolicy`).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { createLoadingCache, type LoadingCache } from '@svc/service-kit';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export interface RenderedPage {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

export interface CachedPage {
  status: number;
  /** Without content-length/content-encoding: they depend on the encoding served. */
  headers: [string, string][];
  br: Buffer;
  gzip: Buffer;
  /** The uncompressed size (for the rare client that accepts neither encoding). */
  size: number;
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** `'sha256-…'` of every inline script of a page (scripts with `src` need none). */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(INLINE_SCRIPT)) {
    if (/\bsrc\s*=/i.test(m[1] ?? '')) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2] ?? '', 'utf8').digest('base64')}'`);
  }
  return [...new Set(hashes)];
}

/** The page's CSP with its script nonce replaced by the hashes of its inline scripts. */
export function hashPolicy(csp: string, html: string): string {
  const hashes = inlineScriptHashes(html).join(' ');
  return csp
    .split(';')
    .map((d) => d.trim())
    .map((d) =>
      d.startsWith('script-src ') ? d.replace(/\s'nonce-[^']*'/g, hashes ? ` ${hashes}` : '') : d,
    )
    .join('; ');
}

/** Whether a rendered answer may be stored: a 200/404 HTML page setting no cookie but `lang`. */
export function isStorable(page: RenderedPage): boolean {
  if (page.status !== 200 && page.status !== 404) return false;
  const type = page.headers.find(([n]) => n === 'content-type')?.[1] ?? '';
  if (!type.startsWith('text/html')) return false;
  return page.headers.every(([n, v]) => n !== 'set-cookie' || v.startsWith('lang='));
}

export interface CacheKeyInput {
  url: string;
  langCookie: string | undefined;
  acceptLanguage: string | undefined;
}

export function cacheKey(input: CacheKeyInput): string {
  return `${input.url}\n${input.langCookie ?? ''}\n${input.acceptLanguage ?? ''}`;
}

export interface PageCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

/** A render, and its stored form when it could be stored. */
export interface PageRender {
  page: RenderedPage;
  cached?: CachedPage;
}

export class PageCache {
  /** Stored renders (least recently used out first); concurrent misses share one render. */
  private readonly renders: LoadingCache<PageRender>;

  constructor(options: PageCacheOptions) {
    this.renders = createLoadingCache<PageRender>({
      ttlMs: options.ttlMs,
      max: options.maxEntries,
      keep: (render) => render.cached !== undefined,
      now: options.now,
    });
  }

  get size(): number {
    return this.renders.size;
  }

  /** A fresh stored page, or undefined. */
  get(key: string): CachedPage | undefined {
    return this.renders.peek(key)?.cached;
  }

  /**
   * Renders once for all concurrent callers of `key`. Answers the render (always) and the
   * stored page when it could be stored.
   */
  render(key: string, produce: () => Promise<RenderedPage>): Promise<PageRender> {
    return this.renders.get(key, async () => {
      const page = await produce();
      if (!isStorable(page)) return { page };
      return { page, cached: await compressed(page) };
    });
  }
}

/** The stored form of a page: compressed twice, its CSP nonce replaced by script hashes. */
async function compressed(page: RenderedPage): Promise<CachedPage> {
  const html = page.body.toString('utf8');
  const headers = page.headers
    .filter(([n]) => n !== 'content-length' && n !== 'content-encoding' && n !== 'transfer-encoding')
    .map(([n, v]): [string, string] => (n === 'content-security-policy' ? [n, hashPolicy(v, html)] : [n, v]));
  const [br, gz] = await Promise.all([
    brotli(page.body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6 } }),
    gzip(page.body, { level: 6 }),
  ]);
  return { status: page.status, headers, br, gzip: gz, size: page.body.length };
}

/** br, else gzip, else none, from an Accept-Encoding header (q=0 refuses). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}
