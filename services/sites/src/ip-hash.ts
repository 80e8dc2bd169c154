// Client IPs are personal data: the boosts table keeps only a keyed hash (HMAC-SHA256
// with IP_HASH_SECRET), enough to count a visitor's boosts, useless to recover the IP.
import { createHmac } from 'node:crypto';

export type IpHasher = (ip: string) => string;

export function createIpHasher(secret: string): IpHasher {
  return (ip) => createHmac('sha256', secret).update(`ip:${ip}`).digest('hex');
}
