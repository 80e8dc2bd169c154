// One identity per client address, for rate limits and for the hashed IPs that sites
// (boosts) and chat (likes, entrances) keep instead of the address itself.
import { createHmac } from 'node:crypto';
import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/**
 * One spelling per address, so the same visitor always counts and hashes the same: an IPv4
 * address that reached us as IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4 address, and
 * IPv6 is lower-case.
 */
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip.toLowerCase();
}

/** The client IP as the gateway reported it (express computes it from trust proxy). */
export const byIp = (req: Request): string =>
  normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown');

/**
 * The client's network for limits that must not be dodged by changing address: the IPv4
 * address itself, or the /64 of an IPv6 address (a subscriber is usually handed a whole
 * /64, so single IPv6 addresses cost an attacker nothing).
 */
export function networkOf(ip: string): string {
  const normalized = normalizeIp(ip);
  if (!ipaddr.IPv6.isValid(normalized) || ipaddr.IPv4.isValid(normalized)) return normalized;
  const parts = ipaddr.IPv6.parse(normalized).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/** The client network (IPv4 address or IPv6 /64) as the gateway reported the IP. */
export const byNetwork = (req: Request): string => networkOf(byIp(req));

/**
 * A keyed hash (HMAC-SHA256 with IP_HASH_SECRET) of a client IP: enough to recognise a
 * visitor again, useless to recover the address (an unkeyed hash of the small IPv4 space
 * could simply be reversed).
 */
export function hashIp(secret: string, ip: string): string {
  return createHmac('sha256', secret).update(`ip:${normalizeIp(ip)}`).digest('hex');
}

export type IpHasher = (ip: string) => string;

export const createIpHasher =
  (secret: string): IpHasher =>
  (ip) =>
    hashIp(secret, ip);
