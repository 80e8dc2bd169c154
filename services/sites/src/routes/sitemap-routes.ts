// HTTP of /sitemap.xml: rendered from the most relevant sites, kept for a few minutes in
// the process (one render at a time), so crawlers cannot make it a database load. A
// moderator's hide/restore in this process drops the cached render (the returned
// `invalidate`); other processes' renders expire within CACHE_MS.
import type { Express } from 'express';
import { renderSitemap, sitePagePath, type SitemapEntry } from '../domain/sitemap.js';

const CACHE_MS = 10 * 60_000;

export function sitemapRoutes(
  app: Express,
  deps: {
    /** The most relevant visible sites (routed: store/read-routing.ts). */
    sitemapSites: (limit: number) => Promise<Array<{ id: string; lastActivityAt: Date }>>;
    publicBaseUrl: string;
    maxSites: number;
  },
): { invalidate(): void } {
  const origin = deps.publicBaseUrl.replace(/\/+$/, '');
  let cached: { xml: string; until: number } | undefined;
  let rendering: Promise<string> | undefined;
  let generation = 0;

  async function render(): Promise<string> {
    const started = generation;
    const sites = await deps.sitemapSites(deps.maxSites);
    const entries: SitemapEntry[] = [
      { path: '/' },
      ...sites.map((s) => ({ path: sitePagePath(s.id), lastModified: s.lastActivityAt })),
    ];
    const { xml } = renderSitemap(origin, entries);
    // A render that began before an invalidate() may list a just-hidden site: serve, don't keep.
    if (started === generation) cached = { xml, until: Date.now() + CACHE_MS };
    return xml;
  }

  app.get('/sitemap.xml', async (_req, res) => {
    const xml =
      cached && cached.until > Date.now()
        ? cached.xml
        : await (rendering ??= render().finally(() => {
            rendering = undefined;
          }));
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.type('application/xml; charset=utf-8').send(xml);
  });

  return {
    invalidate() {
      generation += 1;
      cached = undefined;
      rendering = undefined;
    },
  };
}
