// /sitemap.xml rendering (docs/decisions/007-discovery-documents.md): the home page and each site page, each with an
// `xhtml:link rel="alternate" hreflang` per UI language plus `x-default`.
import { LANGUAGE_CODES } from '@svc/types';

/** Sitemap protocol limits: 50 000 <url> entries and 50 MiB uncompressed per file. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export interface SitemapEntry {
  /** Path below the origin, starting with `/`. */
  path: string;
  lastModified?: Date;
}

/** Where a site's page lives in the web client. */
export const sitePagePath = (siteId: string) => `/site/${encodeURIComponent(siteId)}`;

export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A language variant of a page: the client reads `?lang=`. */
function withLang(url: string, lang: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${encodeURIComponent(lang)}`;
}

function renderEntry(origin: string, entry: SitemapEntry): string {
  const loc = `${origin}${entry.path}`;
  const alternates = [
    ...LANGUAGE_CODES.map((lang) => [lang, withLang(loc, lang)] as const),
    ['x-default', loc] as const,
  ]
    .map(
      ([lang, href]) =>
        `<xhtml:link rel="alternate" hreflang="${lang}" href="${escapeXml(href)}"/>`,
    )
    .join('');
  const lastmod = entry.lastModified
    ? `<lastmod>${entry.lastModified.toISOString()}</lastmod>`
    : '';
  return `<url><loc>${escapeXml(loc)}</loc>${lastmod}${alternates}</url>\n`;
}

/**
 * Renders entries until either protocol limit would be passed; the rest are left out
 * (callers pass them most relevant first). `origin` has no trailing slash.
 */
export function renderSitemap(
  origin: string,
  entries: Iterable<SitemapEntry>,
  limits = { maxUrls: SITEMAP_MAX_URLS, maxBytes: SITEMAP_MAX_BYTES },
): { xml: string; count: number } {
  const head =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n';
  const tail = '</urlset>\n';
  const parts = [head];
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let count = 0;
  for (const entry of entries) {
    if (count >= limits.maxUrls) break;
    const xml = renderEntry(origin, entry);
    const size = Buffer.byteLength(xml);
    if (bytes + size > limits.maxBytes) break;
    parts.push(xml);
    bytes += size;
    count += 1;
  }
  parts.push(tail);
  return { xml: parts.join(''), count };
}
