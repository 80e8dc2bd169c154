// HTTP of /sitemap.xml and /sitemap-<n>.xml (domain/sitemap.ts): /sitemap.xml lists every
// visible site while they fit one file, else it is the index of the files. Each render is
// kept for SITEMAP_CACHE_MS in the process (one render at a time per file), so crawlers
// cannot make it a database load; a moderator's hide/restore in this process drops the
// renders (the returned `invalidate`), other processes' renders expire within the TTL.
// A file of 8,000 sites is 12 MB of XML and 0.7 MB gzipped: each render is gzipped once
// (55 ms) and sent so to every client that accepts it, which is every crawler.
import { gzipSync } from 'node:zlib';
import type { Express, Request, Response } from 'express';
import { createLoadingCache, notFound } from '@svc/service-kit';
import { SitemapFileParams } from '@svc/types';
import {
  SITEMAP_MAX_URLS,
  renderSitemap,
  renderSitemapIndex,
  sitePagePath,
  sitemapFileCount,
  sitemapHashRange,
  type SitemapEntry,
} from '../domain/sitemap.js';
import type { SiteListReader } from '../store/site-list-reader.js';
import type { SitemapReader, SitemapSite } from '../store/sitemap-reader.js';

const HOME: SitemapEntry = { path: '/' };

/** A render as sent: the XML and its gzip. */
interface Rendered {
  xml: Buffer;
  gzip: Buffer;
}
/** "No such file" (the cache holds no null). */
const NONE = 'none';
const encode = (xml: string): Rendered => {
  const bytes = Buffer.from(xml);
  return { xml: bytes, gzip: gzipSync(bytes) };
};
const entriesOf = (sites: SitemapSite[]): SitemapEntry[] =>
  sites.map((s) => ({ path: sitePagePath(s.id), lastModified: s.lastActivityAt }));

export function sitemapRoutes(
  app: Express,
  deps: {
    reader: SitemapReader;
    /** The visible sites' total (exact while few, else the planner's estimate). */
    listReader: Pick<SiteListReader, 'total'>;
    publicBaseUrl: string;
    /** Sites per file: one file while they fit, else files of about half to all of it. */
    maxSites: number;
    /** How long a render is served again (0 = every request renders). */
    cacheMs: number;
  },
): { invalidate(): void } {
  const origin = deps.publicBaseUrl.replace(/\/+$/, '');
  const renders = createLoadingCache<Rendered | typeof NONE>({ ttlMs: deps.cacheMs, max: 64 });
  const fileCount = async () => sitemapFileCount((await deps.listReader.total({})).total, deps.maxSites);

  /** /sitemap.xml: the sites themselves, or the index of the files. */
  async function renderMain(): Promise<Rendered> {
    const files = await fileCount();
    if (files > 1) return encode(renderSitemapIndex(origin, files));
    const sites = await deps.reader.hottest(deps.maxSites);
    return encode(renderSitemap(origin, [HOME, ...entriesOf(sites)]).xml);
  }

  /** /sitemap-<n>.xml: NONE when the index has no file `n`. */
  async function renderFile(n: number): Promise<Rendered | typeof NONE> {
    const files = await fileCount();
    if (files === 1 || n > files) return NONE;
    // The home page opens the first file; the protocol's 50 000 URLs bound every file.
    const sites = await deps.reader.hashRange(sitemapHashRange(n, files), SITEMAP_MAX_URLS - 1);
    return encode(renderSitemap(origin, n === 1 ? [HOME, ...entriesOf(sites)] : entriesOf(sites)).xml);
  }

  const send = (req: Request, res: Response, body: Rendered) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.setHeader('Vary', 'Accept-Encoding');
    res.type('application/xml; charset=utf-8');
    if (req.acceptsEncodings('gzip') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      res.send(body.gzip);
    } else {
      res.send(body.xml);
    }
  };

  app.get('/sitemap.xml', async (req, res) => {
    const body = await renders.get('main', renderMain);
    if (body === NONE) throw notFound();
    send(req, res, body);
  });

  app.get('/sitemap-:n.xml', async (req, res) => {
    const params = SitemapFileParams.safeParse(req.params);
    const n = params.success ? Number(params.data.n) : 0;
    const body = n > 0 ? await renders.get(`file ${n}`, () => renderFile(n)) : NONE;
    if (body === NONE) throw notFound();
    send(req, res, body);
  });

  return {
    invalidate() {
      renders.clear();
    },
  };
}
