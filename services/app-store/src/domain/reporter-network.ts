// The client network a report came from, for REPORT_DISTINCT_NETWORKS (docs/decisions/018-abuse-resistant-reporting.md
// "Abuse-resistant reporting"): the IPv4 /24 or the IPv6 /56. Wider than the kit's
// `networkOf` (IPv4 address, IPv6 /64), which bounds login attempts: here the question is
// "could these accounts be one household, office or rented block", not "one subscriber".
import { isIPv4, isIPv6 } from 'node:net';
import { hashIp, normalizeIp } from '@svc/service-kit';

/** The 8 groups of an IPv6 address (an embedded IPv4 tail becomes the last two). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split('%')[0]!;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const left = parse(head);
  const right = parse(tail);
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

/** `a.b.c.0/24` for IPv4, `g0:g1:g2:g3::/56` (low byte of g3 zeroed) for IPv6. */
export function reporterNetworkOf(ip: string): string {
  const normalized = normalizeIp(ip);
  if (isIPv4(normalized)) return `${normalized.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(normalized)) {
    const g = ipv6Groups(normalized);
    const prefix = [g[0]!, g[1]!, g[2]!, g[3]! & 0xff00];
    return `${prefix.map((n) => n.toString(16)).join(':')}::/56`;
  }
  return normalized;
}

/** The keyed hash stored with each report (never the address or the network itself). */
export const reporterNetworkHash = (secret: string, ip: string): string =>
  hashIp(secret, reporterNetworkOf(ip));
