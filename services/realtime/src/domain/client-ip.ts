// The client address of an upgrade request: X-Forwarded-For is believed only from the
// trusted proxies (the gateway, TRUSTED_PROXIES), exactly as express computes req.ip.
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import { normalizeIp } from '@svc/service-kit';

export type TrustFn = (addr: string, i: number) => boolean;

export function compileTrust(setting: string | boolean | number): TrustFn {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_a, i) => i < setting;
  return proxyAddr.compile(
    setting
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export function clientIp(req: IncomingMessage, trust: TrustFn): string {
  // One spelling per address (`::ffff:1.2.3.4` is 1.2.3.4), as for every per-IP rule.
  return normalizeIp(proxyAddr(req, trust));
}
