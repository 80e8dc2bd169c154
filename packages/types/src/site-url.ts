// URL normalisation before dedup (docs/decisions/005-sites.md): one spelling per page, so the same site
// submitted twice with a different case, port, fragment or tracking tail is one row. The one
// implementation: the sites service stores what it answers, and `svc sites get` finds a site
// by comparing with it. Pure (the WHATWG URL parser only), so it lives with the contract.
import { SITE_URL_MAX_LENGTH } from './sites.js';

export type NormalisedUrl =
  { ok: true; url: string; domain: string } | { ok: false; reason: string };

/** Query parameters that only say where a click came from. */
const TRACKING_PARAM = /^(utm_.+|fbclid|gclid|dclid|msclkid|yclid|igshid|mc_cid|mc_eid)$/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Lower-case scheme and host (the WHATWG parser does it), no default port, no fragment,
 * no trailing `/` on the root path, no tracking parameters; only http(s), no credentials,
 * at most 2048 characters. A bare `example.com/page` is read as https.
 */
export function normaliseSiteUrl(raw: string): NormalisedUrl {
  const input = raw.trim();
  if (input === '') return { ok: false, reason: 'URL is required' };
  let parsed: URL;
  try {
    parsed = new URL(
      HAS_SCHEME.test(input) && !/^[^:/]+:\d/.test(input) ? input : `https://${input}`,
    );
  } catch {
    return { ok: false, reason: 'Invalid URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: 'Only http and https URLs are accepted' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'URLs with credentials are not accepted' };
  }
  // A trailing dot names the same host (`example.com.`).
  const host = parsed.hostname.replace(/\.$/, '');
  if (host === '') return { ok: false, reason: 'Invalid URL' };
  parsed.hostname = host;
  parsed.hash = '';

  // Filter the raw query so the remaining parameters keep their original encoding.
  const kept = parsed.search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '' && !TRACKING_PARAM.test(safeDecode(pair.split('=')[0]!)));
  const search = kept.length > 0 ? `?${kept.join('&')}` : '';
  const path = parsed.pathname === '/' ? '' : parsed.pathname;
  const url = `${parsed.protocol}//${parsed.host}${path}${search}`;
  if (url.length > SITE_URL_MAX_LENGTH) return { ok: false, reason: 'URL is too long' };
  return { ok: true, url, domain: host.replace(/^www\./, '') };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
