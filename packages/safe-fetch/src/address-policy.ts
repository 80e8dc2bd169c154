// Which IP addresses an outbound fetch may connect to: public unicast only. Loopback,
// private, link-local, unique-local, multicast, CGNAT, documentation, benchmarking and
// every other special-purpose range is refused. IPv4-mapped IPv6 (`::ffff:127.0.0.1`)
// is judged as the IPv4 address it carries; IPv6 forms that tunnel to an IPv4 address
// (NAT64, 6to4, Teredo) are refused outright.
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');

/** True when `ip` (any spelling ipaddr.js parses) is a public unicast address. */
export function isPublicAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(stripZone(ip));
  } catch {
    return false; // not an address at all: never connectable by us
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6) && !v6.match(SIX_TO_FOUR);
  }
  return addr.range() === 'unicast';
}

/** `fe80::1%eth0` → `fe80::1` (the zone does not change the range). */
function stripZone(ip: string): string {
  const pct = ip.indexOf('%');
  return pct === -1 ? ip : ip.slice(0, pct);
}
