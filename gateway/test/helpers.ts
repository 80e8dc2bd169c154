// Loopback stubs and a gateway wired to them, for the tests.
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { UPSTREAM_NAMES, type GatewayConfig, type UpstreamName } from '../src/config.js';
import { createGateway, type Gateway, type GatewayOptions } from '../src/app.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
}

export interface Stub {
  name: string;
  url: string;
  server: http.Server;
  seen: Seen[];
  /** TCP connections the stub has accepted. */
  connections: number;
  ready: boolean;
  /** Resolves when a request of this stub saw its client (the gateway) go away. */
  aborted: Promise<string>;
  close(): Promise<void>;
}

/** What web sends with its pages (a stub path ending in `/page-headers` answers with them). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; script-src 'self' 'nonce-abc'; frame-ancestors 'none'",
  'cache-control': 'private, no-cache',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'SAMEORIGIN',
  'cross-origin-opener-policy': 'same-origin-allow-popups',
};

/**
 * A service stand-in. Answers JSON describing what it received:
 * `{ service, method, url, headers, bytes, sha256 }`. Special paths (under any prefix):
 * `.../slow` answers after 2 s, `.../drip` sends one chunk then hangs, `.../cookies` sets two
 * cookies, `.../own-csp`, `.../page-headers`, `.../report-only` and `.../own-cors` send
 * security or CORS headers of their own; `/readyz` answers 200 or 503 after `stub.ready`.
 */
export async function startStub(name: string): Promise<Stub> {
  let onAbort: (url: string) => void = () => {};
  const aborted = new Promise<string>((resolve) => (onAbort = resolve));
  const seen: Seen[] = [];
  const stub = { name, seen, connections: 0, ready: true } as Stub;
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders });
    const url = req.url ?? '/';
    if (url === '/readyz') {
      res.writeHead(stub.ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: stub.ready ? 'ready' : 'unavailable' }));
      return;
    }
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    req.on('end', () => {
      const answer = () => {
        const body = JSON.stringify({ service: name, method: req.method, url, headers: req.headers, bytes, sha256: hash.digest('hex') });
        const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'x-request-id': 'upstream-own-id' };
        if (url.endsWith('/cookies')) headers['set-cookie'] = ['a=1; Path=/', 'b=2; Path=/; HttpOnly'];
        if (url.endsWith('/own-csp')) headers['content-security-policy'] = "img-src 'self'";
        if (url.endsWith('/page-headers')) Object.assign(headers, PAGE_HEADERS);
        if (url.endsWith('/report-only')) headers['content-security-policy-report-only'] = "default-src 'self'";
        if (url.endsWith('/own-cors')) {
          headers['access-control-allow-origin'] = '*';
          headers.vary = 'Accept-Encoding';
        }
        res.writeHead(201, headers);
        res.end(body);
      };
      if (url.endsWith('/slow')) {
        const t = setTimeout(answer, 2_000);
        res.on('close', () => clearTimeout(t));
      } else if (url.endsWith('/drip')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(1024));
        res.on('close', () => onAbort(url));
      } else answer();
    });
  });
  server.on('connection', () => stub.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.server = server;
  stub.aborted = aborted;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

export async function startStubs(): Promise<Record<UpstreamName, Stub>> {
  const stubs = await Promise.all(UPSTREAM_NAMES.map((n) => startStub(n)));
  return Object.fromEntries(stubs.map((s) => [s.name, s])) as Record<UpstreamName, Stub>;
}

/** A port nothing listens on. */
export async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface RunningGateway extends Gateway {
  url: string;
  port: number;
  /** The private ops listener (/readyz detail, /metrics). */
  opsUrl: string;
}

export async function startGateway(
  upstreams: Record<UpstreamName, string>,
  overrides: Partial<GatewayConfig> = {},
  buildDiscovery?: GatewayOptions['buildDiscovery'],
): Promise<RunningGateway> {
  const config: GatewayConfig = {
    port: 0,
    opsPort: 0,
    trustProxy: false,
    logLevel: 'silent',
    upstreams,
    upstreamTimeoutMs: 5_000,
    readyTimeoutMs: 500,
    shutdownTimeoutMs: 2_000,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    maxBodyBytes: 64 * 1024,
    maxConnectionsPerIp: 256,
    publicBaseUrl: 'https://svc.test',
    corsOrigins: [],
    ...overrides,
  };
  const gateway = createGateway(config, { logger: pino({ level: 'silent' }), defaultMetrics: false, buildDiscovery });
  // The OS may hand out again a port that closedPortUrl() just freed: a gateway listener
  // there (public or ops) would be its own "down" upstream, so each takes another one.
  const upstreamPorts = new Set(Object.values(upstreams).map((u) => Number(new URL(u).port)));
  const port = await listenAvoiding(gateway.server, upstreamPorts);
  const opsPort = await listenAvoiding(gateway.ops, upstreamPorts);
  return { ...gateway, port, url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}` };
}

/** Listens on a free loopback port that is none of `avoid`; returns it. */
async function listenAvoiding(server: net.Server, avoid: ReadonlySet<number>): Promise<number> {
  for (;;) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    if (!avoid.has(port)) return port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export function urlsOf(stubs: Record<UpstreamName, Stub>): Record<UpstreamName, string> {
  return Object.fromEntries(Object.entries(stubs).map(([k, s]) => [k, s.url])) as Record<UpstreamName, string>;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  text: string;
  json: () => Record<string, unknown> & { headers?: IncomingHttpHeaders };
}

/** A plain HTTP request (no client-side header rules), body buffered. */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer | string; chunked?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      const body = Buffer.from(options.body);
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      setTimeout(() => req.end(body.subarray(half)), 20);
    } else req.end(options.body);
  });
}

export interface RawAnswer {
  /** Status of the first answer, 0 when none came. */
  status: number;
  /** Everything that came back. */
  text: string;
  /** The first answer's headers, names lower-cased. */
  headers: Record<string, string>;
  body: string;
  /** True when the gateway closed the connection within the wait. */
  closed: boolean;
  /** From connecting to the close (or to the end of the wait). */
  ms: number;
}

/**
 * Writes `parts` on a fresh TCP connection (a number is a pause in ms), then collects what
 * comes back until the peer closes or `waitMs` passes: for requests no HTTP client would
 * send (a body shorter than its Content-Length, headers that never end).
 */
export function rawExchange(
  port: number,
  parts: Array<string | Buffer | number>,
  options: { localAddress?: string; waitMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: options.localAddress });
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split === -1 ? text : text.slice(0, split)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      let body = split === -1 ? '' : text.slice(split + 4);
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
      resolve({ text, status, headers, body, closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => settle(false), options.waitMs ?? 3_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => settle(true));
    socket.on('error', () => settle(true));
    socket.once('connect', async () => {
      for (const part of parts) {
        if (settled) return;
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part).unref());
        else socket.write(part);
      }
    });
  });
}

/** The payload of a chunked body (complete chunks only; extensions and trailers ignored). */
function dechunk(raw: string): string {
  const buf = Buffer.from(raw, 'utf8');
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol === -1) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out).toString('utf8');
}
