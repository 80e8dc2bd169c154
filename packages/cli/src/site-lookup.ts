// `svc sites get <id|url>`: an id is asked of GET /api/sites/{id}; the API has no lookup by
// URL, so a URL is found through the listing: search it for the host, then match the
// normalised URL.
import type { SvcClient } from '@svc/client';
import { normaliseSiteUrl as normaliseUrl, type Site } from '@svc/types';
import { UsageError } from './exit-codes.js';

/**
 * A site id rather than a URL: letters, digits, `_` and `-` only (the kit's ids are 21
 * letters and digits). A URL has a `.`, a `:` or a `/`; a single-label host is no site.
 */
export function isSiteId(input: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(input);
}

/** Pages of 60 looked through before giving up. */
export const LOOKUP_MAX_PAGES = 5;

/**
 * The URL as the service stores it: the one normaliser of @svc/types (docs/decisions/005-sites.md).
 * A single-label name (`abc123`, no dot, not an IPv6 literal) is no site the service
 * accepts: most likely an id.
 */
export function normaliseSiteUrl(input: string): string {
  const out = normaliseUrl(input);
  const hint = "svc sites get takes a site id or the site's URL";
  if (!out.ok) throw new UsageError(`${out.reason}: ${input} (${hint})`);
  if (!/[.[]/.test(out.domain)) throw new UsageError(`not a URL: ${input} (${hint})`);
  return out.url;
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
