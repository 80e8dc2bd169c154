// What the gateway tells services about the client, computed exactly as Express does with
// the same `trust proxy` value (Express uses proxy-addr too), so the proxied path and the
// gateway's own express routes agree.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';

/** TRUSTED_PROXIES as parsed by config.ts: all, a hop count, or addresses and ranges. */
export type TrustProxy = boolean | number | string[];

export type TrustFn = (addr: string, hop: number) => boolean;

/** Same as express's compileTrust for the values TRUST_PROXY can hold. */
export function compileTrust(value: TrustProxy): TrustFn {
  if (value === true) return () => true;
  if (value === false) return () => false;
  if (typeof value === 'number') return (_addr, hop) => hop < value;
  return proxyaddr.compile(value);
}

export interface ClientInfo {
  /** req.ip in Express: the socket address unless trusted proxies vouch for another. */
  ip: string;
  /** req.protocol in Express. */
  proto: 'http' | 'https' | string;
  /** req.host in Express (host[:port]), or undefined. */
  host: string | undefined;
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const comma = value.indexOf(',');
  return (comma === -1 ? value : value.slice(0, comma)).trim();
}

export function clientInfo(req: IncomingMessage, trust: TrustFn): ClientInfo {
  const socket = req.socket;
  const remote = socket.remoteAddress ?? '';
  const trusted = trust(remote, 0);
  let proto = (socket as TLSSocket).encrypted ? 'https' : 'http';
  let host = req.headers.host;
  if (trusted) {
    proto = firstValue(req.headers['x-forwarded-proto']) || proto;
    host = firstValue(req.headers['x-forwarded-host']) || host;
  }
  // proxyaddr walks X-Forwarded-For from the socket backwards while trust() holds.
  const ip = trusted ? proxyaddr(req, trust) : remote;
  return { ip, proto, host: host || undefined };
}
