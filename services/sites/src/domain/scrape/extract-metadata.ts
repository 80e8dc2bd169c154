// metascraper reads title, description, icon and image from the fetched HTML. It does no
// HTTP here: the logo rules are configured not to probe icon URLs (that would be an
// unguarded outbound request) and not to cache per URL (a memory leak in a long-lived
// worker); the page itself was fetched by the SSRF-safe fetcher.
import createMetascraper from 'metascraper';
import metascraperDescription from 'metascraper-description';
import metascraperImage from 'metascraper-image';
import metascraperLogoFavicon from 'metascraper-logo-favicon';
import metascraperTitle from 'metascraper-title';
import type { SiteType } from '@svc/types';
import { toPageMetadata, type PageMetadata, type UrlPolicy } from './page-metadata.js';

/** A keyv store that keeps nothing (metascraper-logo-favicon memoizes per URL otherwise). */
const noCache = {
  get: async () => undefined,
  set: async () => true,
  delete: async () => true,
  clear: async () => undefined,
};

/** Open Graph properties read directly: a profile's avatar and bio (docs/decisions/005-sites.md). */
const openGraph: createMetascraper.Rules = {
  ogImage: [({ htmlDom }) => htmlDom('meta[property="og:image"]').attr('content')],
  ogDescription: [({ htmlDom }) => htmlDom('meta[property="og:description"]').attr('content')],
} as createMetascraper.Rules;

const scraper = createMetascraper([
  metascraperTitle(),
  metascraperDescription(),
  metascraperImage(),
  metascraperLogoFavicon({
    google: false,
    favicon: false,
    rootFavicon: false,
    keyvOpts: { store: noCache } as never,
    // Declared icons are taken as declared: no request to check they exist.
    resolveFaviconUrl: async (url: string) => ({ url }) as never,
  }),
  openGraph,
]);

export async function extractMetadata(input: {
  html: string;
  url: string;
  siteType: SiteType;
  fallbackTitle: string;
  /** Icon and image URLs must pass it (the fetcher's `checkUrl`), else they are dropped. */
  urlPolicy: UrlPolicy;
}): Promise<PageMetadata> {
  const raw = await scraper({ html: input.html, url: input.url, validateUrl: false });
  return toPageMetadata(raw as Record<string, unknown>, {
    siteType: input.siteType,
    fallbackTitle: input.fallbackTitle,
    pageUrl: input.url,
    urlPolicy: input.urlPolicy,
  });
}
