// What the scraper may store from a page: bounded text, and only image URLs that pass the
// URL policy of @svc/safe-fetch (public http(s) destinations): a `javascript:` or `data:`
// favicon, or an og:image at 169.254.169.254 or http://localhost/, would point every
// browser that lists the site at it. Pure: the rules in one place, unit-tested without a page.
import { truncateText, type SiteType } from '@svc/types';

export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 1000;
export const MAX_IMAGE_URL_CHARS = 2048;

/** What metascraper (or Open Graph, for profiles) found; every field may be missing. */
export interface RawMetadata {
  title?: unknown;
  description?: unknown;
  logo?: unknown;
  image?: unknown;
  /** og:image of a profile page (its avatar). */
  ogImage?: unknown;
  /** og:description of a profile page (its bio). */
  ogDescription?: unknown;
}

export interface PageMetadata {
  title: string;
  description: string;
  faviconUrl: string | null;
  ogImageUrl: string | null;
}

/** The URL policy (`checkPublicUrl` of @svc/safe-fetch, or a fetcher's `checkUrl`). */
export type UrlPolicy = (url: string) => { ok: boolean };

/**
 * `fallbackTitle` (the host name) is kept when the page has no title. Profiles take
 * avatar and bio from Open Graph first (docs/decisions/005-sites.md), then the generic rules. An icon or
 * image URL the policy refuses is dropped (the next candidate, else null).
 */
export function toPageMetadata(
  raw: RawMetadata,
  opts: { siteType: SiteType; fallbackTitle: string; pageUrl: string; urlPolicy: UrlPolicy },
): PageMetadata {
  const profile = opts.siteType === 'profile';
  const description = profile
    ? (text(raw.ogDescription) ?? text(raw.description))
    : text(raw.description);
  const url = (v: unknown) => {
    const candidate = httpUrl(v, opts.pageUrl);
    return candidate !== undefined && opts.urlPolicy(candidate).ok ? candidate : undefined;
  };
  const image = profile ? (url(raw.ogImage) ?? url(raw.image)) : url(raw.image);
  return {
    title: truncateText(text(raw.title) ?? opts.fallbackTitle, MAX_TITLE_CHARS, '…'),
    description: truncateText(description ?? '', MAX_DESCRIPTION_CHARS, '…'),
    faviconUrl: url(raw.logo) ?? url(defaultFavicon(opts.pageUrl)) ?? null,
    ogImageUrl: image ?? null,
  };
}

// Control characters and U+FFFD (left by undecodable bytes) become spaces.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f\ufffd]+/g;

/** Collapsed whitespace, no control characters; undefined when empty. */
function text(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const cleaned = v.replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
  return cleaned === '' ? undefined : cleaned;
}


/** An absolute http(s) URL (relative ones resolved against the page), else undefined. */
function httpUrl(v: unknown, base: string): string | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(v.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.href.length <= MAX_IMAGE_URL_CHARS ? url.href : undefined;
}

/** Browsers look for /favicon.ico when a page declares no icon; so do we (unchecked). */
function defaultFavicon(pageUrl: string): string | null {
  try {
    const url = new URL(pageUrl);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? `${url.origin}/favicon.ico`
      : null;
  } catch {
    return null;
  }
}
