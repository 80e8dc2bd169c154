// Sitemap rendering (docs/decisions/007-discovery-documents.md): the home page and each site
// page, each with an `xhtml:link rel="alternate" hreflang` per UI language plus `x-default`.
// While every visible site fits one file (SITEMAP_MAX_SITES), /sitemap.xml lists them all,
// hottest first. Past that, /sitemap.xml is a sitemap index of /sitemap-1.xml …
// /sitemap-<n>.xml, n a power of two: file k holds the sites whose hashtext(id) falls in the
// k-th of n equal ranges of the int4 hashes (docs/decisions/038-growth.md), each read from
// one index range (sites_sitemap_idx) however many sites there are.
import { LANGUAGE_CODES } from '@svc/types';

/** Sitemap protocol limits: 50 000 <url> entries and 50 MiB uncompressed per file, 50 000 files per index. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** At most 2^15 files (the protocol allows 50 000 in an index). */
export const SITEMAP_MAX_FILES = 2 ** 15;

/** The path of sitemap file `n` (from 1) of an index. */
export const sitemapFilePath = (n: number) => `/sitemap-${n}.xml`;

/**
 * How many files hold `sites` visible sites at about `perFile` each: 1 (no index) while they
 * fit, else the power of two that brings each file to between perFile / 2 and perFile.
 */
export function sitemapFileCount(sites: number, perFile: number): number {
  if (sites <= perFile || perFile <= 0) return 1;
  return Math.min(SITEMAP_MAX_FILES, 2 ** Math.ceil(Math.log2(sites / perFile)));
}

/** File `n` of `files` covers hashtext(id) in [from, to): one of `files` equal int4 ranges. */
export function sitemapHashRange(n: number, files: number): { from: number; to: number } {
  const width = 2 ** 32 / files;
  return { from: -(2 ** 31) + (n - 1) * width, to: -(2 ** 31) + n * width };
}

export interface SitemapEntry {
  /** Path below the origin, starting with `/`. */
  path: string;
  lastModified?: Date;
}

/** Where a site's page lives in the web client. */
export const sitePagePath = (siteId: string) => `/site/${encodeURIComponent(siteId)}`;

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** One pass, none when nothing needs escaping: a sitemap file escapes 100,000 URLs. */
export function escapeXml(s: string): string {
  return /[&<>"']/.test(s) ? s.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!) : s;
}

/** The language variants of a page (the client reads `?lang=`), as they follow its URL. */
const LANG_PARAMS = LANGUAGE_CODES.map((lang) => ({ lang, param: `lang=${encodeURIComponent(lang)}` }));

function renderEntry(origin: string, entry: SitemapEntry): string {
  // Escaped once: a language parameter holds nothing XML escapes, `&` joining it does.
  const loc = escapeXml(`${origin}${entry.path}`);
  const join = loc.includes('?') ? '&amp;' : '?';
  let alternates = '';
  for (const { lang, param } of LANG_PARAMS) {
    alternates += `<xhtml:link rel="alternate" hreflang="${lang}" href="${loc}${join}${param}"/>`;
  }
  alternates += `<xhtml:link rel="alternate" hreflang="x-default" href="${loc}"/>`;
  const lastmod = entry.lastModified
    ? `<lastmod>${entry.lastModified.toISOString()}</lastmod>`
    : '';
  return `<url><loc>${loc}</loc>${lastmod}${alternates}</url>\n`;
}

/** A sitemap index of files 1..`files` (`origin` has no trailing slash). */
export function renderSitemapIndex(origin: string, files: number): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
  ];
  for (let n = 1; n <= files; n++) {
    parts.push(`<sitemap><loc>${escapeXml(`${origin}${sitemapFilePath(n)}`)}</loc></sitemap>\n`);
  }
  parts.push('</sitemapindex>\n');
  return parts.join('');
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
