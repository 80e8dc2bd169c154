// Offline IP geolocation: geoip-lite ships its (GeoLite2-derived) database inside the npm
// package, so no download, key or network call is involved. It loads the data on the first
// lookup (~130 ms, ~150 MB of memory), once per process.
import { createRequire } from 'node:module';
import { normalizeIp } from '@svc/service-kit';
import type { GeoPlace } from '../domain/geo-name.js';

export type GeoLookup = (ip: string) => GeoPlace | null;

type GeoipLite = typeof import('geoip-lite');
let geoip: GeoipLite | undefined;

export const geoipLiteLookup: GeoLookup = (ip) => {
  geoip ??= createRequire(import.meta.url)('geoip-lite') as GeoipLite;
  const hit = geoip.lookup(normalizeIp(ip));
  if (!hit || !hit.country) return null;
  return { country: hit.country, city: hit.city ?? '' };
};
