import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { UpstreamName } from '../src/config.js';
import { closedPortUrl, startGateway, startStubs, urlsOf, type RunningGateway, type Stub } from './helpers.js';

let stubs: Record<UpstreamName, Stub>;
let gw: RunningGateway;
let realtime: http.Server;
let wss: WebSocketServer;
const handshakes: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  stubs = await startStubs();
  realtime = http.createServer((_req, res) => res.writeHead(404).end());
  wss = new WebSocketServer({ noServer: true });
  realtime.on('upgrade', (req, socket, head) => {
    if (req.url?.startsWith('/api/ws') !== true || req.headers['x-deny'] !== undefined) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: 21\r\n\r\n{"error":"Forbidden"}');
      return;
    }
    handshakes.push(req.headers);
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data, isBinary) => ws.send(isBinary ? data : `echo:${data.toString()}`, { binary: isBinary }));
    });
  });
  await new Promise<void>((resolve) => realtime.listen(0, '127.0.0.1', resolve));
  const upstreams = { ...urlsOf(stubs), realtime: `http://127.0.0.1:${(realtime.address() as AddressInfo).port}` };
  gw = await startGateway(upstreams);
});

afterAll(async () => {
  await gw.close();
  for (const c of wss.clients) c.terminate();
  wss.close();
  realtime.closeAllConnections();
  await new Promise<void>((resolve) => realtime.close(() => resolve()));
  await Promise.all(Object.values(stubs).map((s) => s.close()));
});

function open(url: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('upgrade', (res) => ws.once('open', () => resolve({ ws, res })));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`unexpected ${res.statusCode}`)));
  });
}

const wsUrl = () => `ws://127.0.0.1:${gw.port}`;

describe('WebSocket upgrade', () => {
  it('tunnels /api/ws to realtime and echoes', async () => {
    const { ws, res } = await open(`${wsUrl()}/api/ws?room=1`, { 'x-request-id': 'ws-1', cookie: 'sn_token=t' });
    expect(res.headers['x-request-id']).toBe('ws-1');
    const replies: string[] = [];
    const got = new Promise<void>((resolve) =>
      ws.on('message', (m) => {
        replies.push(m.toString());
        if (replies.length === 2) resolve();
      }),
    );
    ws.send('hello');
    ws.send('{"event":"ping"}');
    await got;
    expect(replies).toEqual(['echo:hello', 'echo:{"event":"ping"}']);
    const seen = handshakes.at(-1) ?? {};
    expect(seen['x-request-id']).toBe('ws-1');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.cookie).toBe('sn_token=t');
    ws.close();
  });

  it('relays a large binary message both ways', async () => {
    const { ws } = await open(`${wsUrl()}/api/ws`);
    const payload = Buffer.alloc(256 * 1024, 7);
    const back = new Promise<Buffer>((resolve) => ws.once('message', (m) => resolve(m as Buffer)));
    ws.send(payload);
    expect((await back).equals(payload)).toBe(true);
    ws.close();
  });

  it("passes on the upstream's refusal", async () => {
    await expect(open(`${wsUrl()}/api/ws`, { 'x-deny': '1' })).rejects.toThrow('unexpected 403');
  });

  it.each(['/api/other', '/api/ws/deeper', '/api/v1/apps', '/'])('refuses an upgrade on %s by closing the socket', async (path) => {
    await expect(open(wsUrl() + path)).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('answers 502 when realtime is down', async () => {
    const down = await startGateway({ ...urlsOf(stubs), realtime: await closedPortUrl() });
    try {
      await expect(open(`ws://127.0.0.1:${down.port}/api/ws`)).rejects.toThrow('unexpected 502');
    } finally {
      await down.close();
    }
  });

  it('counts open tunnels against the per-address connection cap (429 beyond), a closed one frees its slot', async () => {
    const g = await startGateway(
      { ...urlsOf(stubs), realtime: `http://127.0.0.1:${(realtime.address() as AddressInfo).port}` },
      { maxConnectionsPerIp: 2 },
    );
    const url = `ws://127.0.0.1:${g.port}/api/ws`;
    try {
      const first = await open(url);
      const second = await open(url);
      await expect(open(url)).rejects.toThrow('unexpected 429');
      const closed = new Promise<void>((resolve) => first.ws.once('close', () => resolve()));
      first.ws.close();
      await closed;
      let third: WebSocket | undefined;
      for (let i = 0; i < 20 && third === undefined; i++) {
        await new Promise((r) => setTimeout(r, 25));
        third = await open(url).then(({ ws }) => ws, () => undefined);
      }
      expect(third).toBeDefined();
      second.ws.close();
      third?.close();
    } finally {
      await g.close();
    }
  });

  it('closes open tunnels on shutdown', async () => {
    const g = await startGateway({ ...urlsOf(stubs), realtime: `http://127.0.0.1:${(realtime.address() as AddressInfo).port}` });
    const { ws } = await open(`ws://127.0.0.1:${g.port}/api/ws`);
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    await g.close();
    await closed;
  });
});
