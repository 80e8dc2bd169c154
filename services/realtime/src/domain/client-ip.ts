// The client address of an upgrade request: X-Forwarded-For is believed only from the
// trusted proxies (the gateway, TRUSTED_PROXIES), exactly as express computes req.ip.
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

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
  const ip = proxyAddr(req, trust);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}
