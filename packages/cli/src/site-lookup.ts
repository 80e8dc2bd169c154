// `svc sites get <url>`: the site-sharing API has no GET /api/sites/{id}, so a site is
// found by its URL: search the listing for its host, then match the normalised URL.
import type { SvcClient } from '@svc/client';
import type { Site } from '@svc/types';
import { UsageError } from './exit-codes.js';

/** Pages of 60 looked through before giving up. */
export const LOOKUP_MAX_PAGES = 5;

const TRACKING = /^(utm_.*|fbclid|gclid)$/i;

/**
 * The service's URL normalisation (DECISIONS §5): lower-case scheme and host, no default
 * port, no fragment, no trailing `/` on the root path, no tracking parameters.
 */
export function normaliseSiteUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new UsageError(
      `not a URL: ${input} (svc sites get takes the site's URL; the API has no lookup by id)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`not an http(s) URL: ${input}`);
  }
  url.hash = '';
  for (const key of [...url.searchParams.keys()])
    if (TRACKING.test(key)) url.searchParams.delete(key);
  const text = url.toString(); // URL already lower-cases scheme and host and drops default ports
  return url.pathname === '/' && !url.search ? text.replace(/\/$/, '') : text;
}

export function siteHost(normalised: string): string {
  return new URL(normalised).hostname.replace(/^www\./, '');
}

export async function findSiteByUrl(client: SvcClient, input: string): Promise<Site | undefined> {
  const wanted = normaliseSiteUrl(input);
  const search = siteHost(wanted);
  for (let page = 1; page <= LOOKUP_MAX_PAGES; page++) {
    const out = await client.sites.list({ search, page, sort: 'recent' });
    const hit = out.sites.find((s) => sameUrl(s.url, wanted));
    if (hit) return hit;
    if (!out.hasMore) return undefined;
  }
  return undefined;
}

function sameUrl(stored: string, wanted: string): boolean {
  try {
    return normaliseSiteUrl(stored) === wanted;
  } catch {
    return false;
  }
}
