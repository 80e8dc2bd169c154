// One spelling per address, so the same visitor always hashes the same: an IPv4 address
// that reached us as IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as the IPv4 address.
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip.toLowerCase();
}
