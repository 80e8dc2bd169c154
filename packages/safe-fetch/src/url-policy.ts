// Which URLs may name a destination on the public Internet, judged from the URL alone
// (pure, synchronous, no DNS): the check a service runs before it stores a URL or hands
// one to browsers, and the first check the fetcher runs on every hop.
//
// Refused:
// - anything but http: and https:, and anything the WHATWG URL parser (what browsers and
//   the fetcher use) cannot parse;
// - an IP literal in any spelling the parser accepts (127.1, 0x7f.1, 2130706433,
//   0177.0.0.1, [::ffff:127.0.0.1], [::127.0.0.1], NAT64, 6to4, Teredo, …) that is not a
//   public unicast address (`isPublicAddress`, the fetcher's own classification);
// - host names that designate this host or a private network by definition, whatever any
//   DNS says: `localhost` and `*.localhost` (RFC 6761), `*.local` (mDNS, RFC 6762),
//   `*.arpa` (infrastructure; `home.arpa` is RFC 8375's home network), `*.internal` (ICANN's
//   private-use TLD, e.g. metadata.google.internal, ec2.internal), `*.localdomain`, and the
//   private-use names of RFC 6762 appendix G (`intranet`, `private`, `corp`, `home`, `lan`);
// - single-label names (`http://intranet/`, `http://metadata/`): a resolver completes them
//   with its search domains into names of the local network; ICANN does not allow dotless
//   public names (SAC053).
//
// Not knowable here: a public-looking name whose DNS answers a private address
// (`127.0.0.1.nip.io`, DNS rebinding). The fetcher checks the resolved addresses at
// connect time; a service that only stores or shows a URL cannot.
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from './address-policy.js';

export type UrlPolicyResult = { ok: true; url: URL } | { ok: false; reason: string };

export interface UrlPolicyOptions {
  /**
   * `host:port` pairs exempt from the host rules (as the fetcher's `allowHosts`: tests'
   * loopback fakes, never production). The scheme rule still applies.
   */
  allowHosts?: Iterable<string>;
}

/** Top-level labels that can only name the local host or a private network. */
const LOCAL_TLDS = new Set([
  'localhost',
  'local',
  'arpa',
  'internal',
  'localdomain',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
]);

/** The policy as a function, so a caller can pass one verdict around with its allow-list. */
export function checkPublicUrl(
  input: string | URL,
  options: UrlPolicyOptions = {},
): UrlPolicyResult {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : new URL(input.href);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `scheme ${url.protocol} is not allowed (http and https only)` };
  }
  if (options.allowHosts && isAllowedHost(url, options.allowHosts)) return { ok: true, url };
  const reason = hostProblem(url.hostname);
  return reason ? { ok: false, reason } : { ok: true, url };
}

/** The verdict on the host alone (the URL parser's `hostname`), or undefined when public. */
function hostProblem(hostname: string): string | undefined {
  if (hostname === '') return 'the URL has no host';
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  // The parser has already turned every IPv4 spelling into dotted decimal.
  if (ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.IPv6.isValid(literal)) {
    return isPublicAddress(literal) ? undefined : `${literal} is not a public address`;
  }
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  const labels = name.split('.');
  if (labels.some((l) => l === '')) return `${hostname} is not a valid host name`;
  if (LOCAL_TLDS.has(labels[labels.length - 1]!)) {
    return `${hostname} names a local or private host`;
  }
  if (labels.length < 2) return `${hostname} is not a fully qualified domain name`;
  return undefined;
}

/** `host:port` of a URL, lower-case, with the scheme's default port: an allow-list key. */
export function hostPortOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.toLowerCase()}:${port}`;
}

function isAllowedHost(url: URL, allowHosts: Iterable<string>): boolean {
  const hostPort = hostPortOf(url);
  for (const allowed of allowHosts) if (allowed.toLowerCase() === hostPort) return true;
  return false;
}
