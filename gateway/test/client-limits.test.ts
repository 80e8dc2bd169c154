// What a client may hold: time for its headers and body (408), body size (413, the services'
// JSON limit), and open connections per address (429). A slow or oversized request must
// never reach (or hold a connection to) a service.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import net from 'node:net';
import type { UpstreamName } from '../src/config.js';
import { MAX_REQUEST_HEAD_BYTES } from '../src/app.js';
import { rawExchange, request, startGateway, startStubs, urlsOf, type RunningGateway, type Stub } from './helpers.js';

const HEADERS_TIMEOUT_MS = 300;
const BODY_TIMEOUT_MS = 400;
/** Mid-body pause of a slow but timely client. */
const PAUSE_MS = 600;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const seenUrl = (stub: Stub, url: string) => stub.seen.some((s) => s.url === url);

let stubs: Record<UpstreamName, Stub>;
/** Short client timeouts, no connection cap (the flood below comes from one address). */
let tight: RunningGateway;
/** A body timeout long enough for a clear pause mid-body. */
let patient: RunningGateway;

beforeAll(async () => {
  stubs = await startStubs();
  tight = await startGateway(urlsOf(stubs), {
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    maxConnectionsPerIp: 0,
  });
  patient = await startGateway(urlsOf(stubs), { bodyTimeoutMs: 3_000 });
});

afterAll(async () => {
  await Promise.all([tight.close(), patient.close()]);
  await Promise.all(Object.values(stubs).map((s) => s.close()));
});

function expectTimeoutAnswer(answer: Awaited<ReturnType<typeof rawExchange>>): void {
  expect(answer.status).toBe(408);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers.connection).toBe('close');
  expect(JSON.parse(answer.body)).toEqual({ error: 'Request timeout' });
  expect(answer.closed).toBe(true);
}

describe('large request heads', () => {
  /** A GET whose head (request line and headers) is `bytes` long, most of it a query. */
  const headOf = (bytes: number) => {
    const start = `GET /api/v1/apps?case=head-${bytes}&q=`;
    const end = ' HTTP/1.1\r\nHost: svc.test\r\nconnection: close\r\n\r\n';
    return start + 'q'.repeat(bytes - start.length - end.length) + end;
  };

  it("a head the services would refuse gets the gateway's 431 JSON and never reaches them", async () => {
    // Under Node's 16 KiB, but not with the headers the gateway adds: a service's limit.
    const answer = await rawExchange(tight.port, [headOf(16 * 1024 - 40)]);
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Request header fields too large' });
    expect(answer.closed).toBe(true);
    expect(stubs['app-store'].seen.some((s) => s.url.includes(`head-${16 * 1024 - 40}`))).toBe(false);
  });

  it('the largest head the gateway takes reaches the service with the headers the gateway adds', async () => {
    const answer = await rawExchange(tight.port, [headOf(MAX_REQUEST_HEAD_BYTES - 64)]);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body).url).toContain(`head-${MAX_REQUEST_HEAD_BYTES - 64}`);
  });
});

describe('slow clients', () => {
  it('a body shorter than its Content-Length gets 408 JSON after the body timeout; the service never sees it', async () => {
    const before = stubs.chat.connections;
    const answer = await rawExchange(tight.port, [
      'POST /api/messages?case=short HTTP/1.1\r\nHost: svc.test\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"content":"hel',
    ]);
    expectTimeoutAnswer(answer);
    expect(answer.headers['x-request-id']).toBeDefined();
    expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 1_000);
    await sleep(100);
    expect(stubs.chat.connections).toBe(before);
    expect(seenUrl(stubs.chat, '/api/messages?case=short')).toBe(false);
  });

  it('headers that never end, or never start, get 408 JSON after the headers timeout', async () => {
    const partial = await rawExchange(tight.port, ['GET /api/v1/apps HTTP/1.1\r\nHost: svc.test\r\nx-slow: 1\r\n']);
    expectTimeoutAnswer(partial);
    expect(partial.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 20);
    expect(partial.ms).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000);
    const silent = await rawExchange(tight.port, []);
    expectTimeoutAnswer(silent);
    expect(silent.ms).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000);
    // The clock starts at a request's first byte: an idle keep-alive connection is not cut.
    const get = 'GET /api/v1/apps HTTP/1.1\r\nHost: svc.test\r\n';
    const answer = await rawExchange(tight.port, [`${get}\r\n`, HEADERS_TIMEOUT_MS * 3, `${get}connection: close\r\n\r\n`]);
    expect(answer.text.match(/^HTTP\/1\.1 201 /gm)).toHaveLength(2);
    // A status line, not any "408" (a request id may hold one).
    expect(answer.text).not.toMatch(/^HTTP\/1\.1 408 /m);
  });

  it('hundreds of slow bodies open no connection to the service while other requests are served', async () => {
    const before = stubs.chat.connections;
    const slow = Array.from({ length: 300 }, (_, i) =>
      rawExchange(
        tight.port,
        [`POST /api/messages?flood=${i} HTTP/1.1\r\nHost: svc.test\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"c`],
        { waitMs: 5_000 },
      ),
    );
    await sleep(150);
    expect(stubs.chat.connections).toBe(before);
    expect((await request(`${tight.url}/api/v1/apps`)).status).toBe(201);
    const answers = await Promise.all(slow);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 408));
    expect(stubs.chat.connections).toBe(before);
    expect(stubs.chat.seen.some((s) => s.url.includes('flood='))).toBe(false);
  });

  it.each([
    ['Content-Length', false],
    ['chunked', true],
  ])('a body sent slowly within the timeout reaches the service whole, and only once complete (%s)', async (_framing, chunked) => {
    const body = JSON.stringify({ text: 'héllo 世界 '.repeat(50), targetLang: 'en' });
    const bytes = Buffer.from(body);
    const half = Math.floor(bytes.length / 2);
    const [first, rest] = [bytes.subarray(0, half), bytes.subarray(half)];
    const url = `/api/translate?case=slow-${chunked ? 'chunked' : 'sized'}`;
    const head = `POST ${url} HTTP/1.1\r\nHost: svc.test\r\ncontent-type: application/json\r\nconnection: close\r\n`;
    const parts = chunked
      ? [
          `${head}transfer-encoding: chunked\r\n\r\n${half.toString(16)}\r\n`,
          first,
          '\r\n',
          PAUSE_MS,
          `${(bytes.length - half).toString(16)}\r\n`,
          rest,
          '\r\n0\r\n\r\n',
        ]
      : [`${head}content-length: ${bytes.length}\r\n\r\n`, first, PAUSE_MS, rest];
    const exchange = rawExchange(patient.port, parts);
    await sleep(PAUSE_MS - 200);
    expect(seenUrl(stubs.translate, url)).toBe(false);
    const answer = await exchange;
    expect(answer.status).toBe(201);
    const seen = JSON.parse(answer.body) as { bytes: number; sha256: string; headers: Record<string, string> };
    expect(seen.bytes).toBe(bytes.length);
    expect(seen.sha256).toBe(sha256(bytes));
    expect(seen.headers['content-type']).toBe('application/json');
    // Read whole first, so it goes upstream with its length.
    expect(seen.headers['content-length']).toBe(String(bytes.length));
    expect(seen.headers['transfer-encoding']).toBeUndefined();
  });
});

// Up to the limit, bodies pass intact: proxy.test.ts ("proxies a 64 KiB body").
describe('body size', () => {
  const LIMIT = 64 * 1024;

  it('answers 413 JSON to a larger Content-Length without calling the service', async () => {
    const before = stubs.sites.connections;
    for (const size of [LIMIT + 1, 1024 * 1024]) {
      const res = await request(`${tight.url}/api/sites?case=big-${size}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(size) },
        body: Buffer.alloc(size, 'a'),
      });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.connection).toBe('close');
      expect(res.json()).toEqual({ error: 'Payload too large' });
      expect(seenUrl(stubs.sites, `/api/sites?case=big-${size}`)).toBe(false);
    }
    expect(stubs.sites.connections).toBe(before);
  });

  it('answers 413 JSON to a chunked body once it passes the limit, without calling the service', async () => {
    const before = stubs.sites.connections;
    const chunk = (n: number) => `${n.toString(16)}\r\n${'a'.repeat(n)}\r\n`;
    const answer = await rawExchange(tight.port, [
      'POST /api/sites?case=big-chunked HTTP/1.1\r\nHost: svc.test\r\ntransfer-encoding: chunked\r\n\r\n',
      chunk(40_000),
      chunk(40_000),
      // The answer comes before the body ends.
      2_000,
      '0\r\n\r\n',
    ]);
    expect(answer.status).toBe(413);
    expect(answer.ms).toBeLessThan(1_500);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ error: 'Payload too large' });
    expect(seenUrl(stubs.sites, '/api/sites?case=big-chunked')).toBe(false);
    expect(stubs.sites.connections).toBe(before);
  });
});

/** A keep-alive connection from `localAddress` that has been served once (so the gateway counted it). */
async function servedConnection(port: number, localAddress = '127.0.0.1'): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: svc.test\r\n\r\n'));
    socket.once('data', (d: Buffer) => (d.toString().startsWith('HTTP/1.1 200') ? resolve() : reject(new Error(d.toString()))));
    socket.once('error', reject);
  });
  return socket;
}

const GET_CLOSE = (path: string) => `GET ${path} HTTP/1.1\r\nHost: svc.test\r\nconnection: close\r\n\r\n`;

describe('connections per client address', () => {
  const CAP = 3;
  let capped: RunningGateway;
  let held: net.Socket[] = [];

  beforeAll(async () => {
    capped = await startGateway(urlsOf(stubs), { maxConnectionsPerIp: CAP });
  });

  afterAll(async () => {
    for (const s of held) s.destroy();
    await capped.close();
  });

  it('refuses a connection over the cap with 429 JSON and Retry-After; other addresses and freed slots are served', async () => {
    held = await Promise.all(Array.from({ length: CAP }, () => servedConnection(capped.port)));

    const refused = await rawExchange(capped.port, [GET_CLOSE('/api/v1/apps?case=over-cap')]);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({ error: 'Too many requests' });
    expect(refused.closed).toBe(true);
    expect(seenUrl(stubs['app-store'], '/api/v1/apps?case=over-cap')).toBe(false);

    // A WebSocket upgrade over the cap is refused the same way.
    const upgrade = await rawExchange(capped.port, [
      'GET /api/ws HTTP/1.1\r\nHost: svc.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    ]);
    expect(upgrade.status).toBe(429);
    expect(JSON.parse(upgrade.body)).toEqual({ error: 'Too many requests' });
    expect(upgrade.closed).toBe(true);

    const other = await rawExchange(capped.port, [GET_CLOSE('/api/v1/apps')], { localAddress: '127.0.0.2' });
    expect(other.status).toBe(201);

    // Closing one frees its slot.
    (held.pop() as net.Socket).destroy();
    let again = 0;
    for (let i = 0; i < 20 && again !== 201; i++) {
      await sleep(25);
      again = (await rawExchange(capped.port, [GET_CLOSE('/api/v1/apps')])).status;
    }
    expect(again).toBe(201);
  });

  it('does not count a peer TRUST_PROXY trusts (the proxy in front caps its clients)', async () => {
    const behindProxy = await startGateway(urlsOf(stubs), { maxConnectionsPerIp: 1, trustProxy: ['127.0.0.1'] });
    const sockets: net.Socket[] = [];
    try {
      sockets.push(await servedConnection(behindProxy.port), await servedConnection(behindProxy.port));
      expect((await rawExchange(behindProxy.port, [GET_CLOSE('/api/v1/apps')])).status).toBe(201);
      sockets.push(await servedConnection(behindProxy.port, '127.0.0.2'));
      const refused = await rawExchange(behindProxy.port, [GET_CLOSE('/api/v1/apps')], { localAddress: '127.0.0.2' });
      expect(refused.status).toBe(429);
    } finally {
      for (const s of sockets) s.destroy();
      await behindProxy.close();
    }
  });
});
