// The subscription, on the platform's global WebSocket, against a real `ws` server: events,
// reconnection after 1012 with backoff, codes that end it, the keep-alive that replaces a
// silent connection.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import * as contract from '@svc/types';
import {
  WS_CLOSE_BAD_RESUME,
  WS_RESUME_PARAM,
  subscribe,
  type RealtimeMessage,
  type Subscription,
} from '../src/index.js';

interface Server {
  url: string;
  wss: WebSocketServer;
  /** Sockets in connection order. */
  sockets: ServerSocket[];
  paths: string[];
  /** Resolves when connection number n (1-based) has arrived. */
  connection: (n: number) => Promise<ServerSocket>;
  received: string[];
  close: () => Promise<void>;
}

async function startServer(): Promise<Server> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const sockets: ServerSocket[] = [];
  const paths: string[] = [];
  const received: string[] = [];
  const waiters: Array<{ n: number; resolve: (s: ServerSocket) => void }> = [];
  wss.on('connection', (socket, req) => {
    sockets.push(socket);
    paths.push(req.url ?? '');
    socket.on('message', (data) => received.push(data.toString()));
    for (const w of waiters.filter((w) => w.n === sockets.length)) w.resolve(socket);
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    wss,
    sockets,
    paths,
    received,
    connection: (n) =>
      sockets[n - 1]
        ? Promise.resolve(sockets[n - 1]!)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((r) => {
        for (const s of wss.clients) s.terminate();
        wss.close(() => r());
      }),
  };
}

const chat = (id: string): RealtimeMessage => ({
  event: 'new_message',
  payload: {
    id,
    type: 'chat',
    content: `hello ${id}`,
    content_key: null,
    content_params: null,
    sender_name: 'Visitor from Paris',
    sender_location: 'FR|Paris',
    like_count: 0,
    created_at: '2026-11-22T01:00:00.000Z',
  },
});

function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error('condition not met in time'));
      setTimeout(tick, 10);
    };
    tick();
  });
}

let server: Server | undefined;
let sub: Subscription | undefined;
afterEach(async () => {
  sub?.close();
  await server?.close();
  sub = server = undefined;
});

describe('subscribe', () => {
  it('connects to /api/ws and delivers events, not pongs or junk', async () => {
    server = await startServer();
    const events: RealtimeMessage[] = [];
    const invalid: unknown[] = [];
    sub = subscribe(server.url, {
      onEvent: (m) => events.push(m),
      onInvalidMessage: (d) => invalid.push(d),
    });
    const socket = await server.connection(1);
    expect(server.paths[0]).toBe('/api/ws');
    socket.send(JSON.stringify({ event: 'pong', payload: {} }));
    socket.send('not json');
    socket.send(JSON.stringify(chat('m1')));
    await until(() => events.length === 1);
    expect(events).toEqual([chat('m1')]);
    expect(invalid).toEqual(['not json']);
    expect(sub.state).toBe('open');
  });

  it('reconnects after close code 1012 with a jittered backoff, then delivers again', async () => {
    server = await startServer();
    const events: string[] = [];
    const opens: boolean[] = [];
    const reconnecting: Array<{ attempt: number; delayMs: number; code: number }> = [];
    sub = subscribe(server.url, {
      initialDelayMs: 200,
      random: () => 0.5,
      onEvent: (m) => events.push((m.payload as { id: string }).id),
      onOpen: (info) => opens.push(info.reconnected),
      onReconnecting: (info) => reconnecting.push(info),
    });
    const first = await server.connection(1);
    await until(() => opens.length === 1);
    first.close(1012, 'service restart');
    const second = await server.connection(2);
    // Half of the first cap (200 ms): the jitter picks from [0, cap].
    expect(reconnecting).toEqual([{ attempt: 1, delayMs: 100, code: 1012 }]);
    await until(() => opens.length === 2);
    second.send(JSON.stringify(chat('after-restart')));
    await until(() => events.length === 1);
    expect(events).toEqual(['after-restart']);
    expect(opens).toEqual([false, true]);
  });

  it('keeps backing off when the server accepts and at once closes (a crash loop)', async () => {
    server = await startServer();
    server.wss.on('connection', (socket) => socket.close(1011, 'crashing'));
    const delays: number[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      random: () => 0.999,
      onEvent: () => undefined,
      onReconnecting: (info) => delays.push(info.delayMs),
    });
    await until(() => delays.length >= 4);
    expect(delays.slice(0, 4)).toEqual([9, 19, 39, 79]);
  });

  it('backs off further while the server stays down, and resets after a stable connection', async () => {
    server = await startServer();
    const port = Number(new URL(server.url).port);
    const delays: number[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 20,
      maxDelayMs: 80,
      minUptimeMs: 50,
      random: () => 0.999,
      heartbeatIntervalMs: 0,
      onEvent: () => undefined,
      onReconnecting: (info) => delays.push(info.delayMs),
    });
    await server.connection(1);
    await server.close();
    // Connection refused each time: caps 20, 40, 80, 80 (max) with random ≈ 1.
    await until(() => delays.length >= 4);
    expect(delays.slice(0, 4)).toEqual([19, 39, 79, 79]);
    const wss = new WebSocketServer({ host: '127.0.0.1', port });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    const back = new Promise<ServerSocket>((r) => wss.once('connection', (s) => r(s)));
    const socket = await back;
    await new Promise((r) => setTimeout(r, 100)); // longer than minUptimeMs
    const count = delays.length;
    socket.close(1012);
    await until(() => delays.length === count + 1);
    expect(delays[count]).toBe(19);
    sub.close();
    await new Promise<void>((r) => {
      for (const s of wss.clients) s.terminate();
      wss.close(() => r());
    });
  });

  it('ends on a normal close or a policy violation, and reports why', async () => {
    for (const code of [1000, 1008]) {
      server = await startServer();
      const closes: Array<{ code: number; willReconnect: boolean }> = [];
      sub = subscribe(server.url, {
        initialDelayMs: 10,
        onEvent: () => undefined,
        onClose: ({ code, willReconnect }) => closes.push({ code, willReconnect }),
      });
      (await server.connection(1)).close(code, 'bye');
      await expect(sub.closed).resolves.toEqual({ code, reason: 'bye' });
      expect(closes).toEqual([{ code, willReconnect: false }]);
      expect(sub.state).toBe('closed');
      await new Promise((r) => setTimeout(r, 50));
      expect(server.sockets).toHaveLength(1);
      await server.close();
    }
  });

  it('replaces a connection that stops answering its pings', async () => {
    server = await startServer();
    const reconnecting: number[] = [];
    sub = subscribe(server.url, {
      heartbeatIntervalMs: 60,
      initialDelayMs: 10,
      onEvent: () => undefined,
      onReconnecting: (info) => reconnecting.push(info.code),
    });
    // The server never answers: after one unanswered ping the socket is replaced.
    await server.connection(2);
    expect(server.received.filter((m) => m === '{"event":"ping"}').length).toBeGreaterThanOrEqual(
      1,
    );
    expect(reconnecting[0]).toBe(1006);
  });

  it('keeps a connection whose pings are answered', async () => {
    server = await startServer();
    server.wss.on('connection', (socket) =>
      socket.on('message', (d) => {
        if (d.toString() === '{"event":"ping"}') socket.send('{"event":"pong","payload":{}}');
      }),
    );
    sub = subscribe(server.url, { heartbeatIntervalMs: 40, onEvent: () => undefined });
    await server.connection(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(server.sockets).toHaveLength(1);
    expect(server.received.length).toBeGreaterThanOrEqual(3);
  });

  it('stops for good on close(): no reconnection, the server sees 1000', async () => {
    server = await startServer();
    sub = subscribe(server.url, { initialDelayMs: 10, onEvent: () => undefined });
    const socket = await server.connection(1);
    const seen = new Promise<number>((r) => socket.once('close', (code) => r(code)));
    await until(() => sub!.state === 'open');
    sub.close();
    expect(await seen).toBe(1000);
    await expect(sub.closed).resolves.toEqual({ code: 1000, reason: 'client closed' });
    await new Promise((r) => setTimeout(r, 50));
    expect(server.sockets).toHaveLength(1);
  });

  it('gives up after maxAttempts consecutive failures', async () => {
    server = await startServer();
    sub = subscribe(server.url, {
      maxAttempts: 2,
      initialDelayMs: 5,
      onEvent: () => undefined,
    });
    await server.connection(1);
    await server.close();
    server = undefined;
    const end = await sub.closed;
    expect(end.code).toBe(1006);
  });

  it('reads binary frames as well as text ones', async () => {
    server = await startServer();
    const events: RealtimeMessage[] = [];
    sub = subscribe(server.url, { onEvent: (m) => events.push(m) });
    const socket = await server.connection(1);
    socket.send(Buffer.from(JSON.stringify(chat('binary'))), { binary: true });
    await until(() => events.length === 1);
    expect(events).toEqual([chat('binary')]);
  });

  it('uses the WebSocket it is given instead of the global one', async () => {
    server = await startServer();
    const urls: string[] = [];
    class Recording extends WebSocket {
      constructor(url: string) {
        super(url);
        urls.push(url);
      }
    }
    sub = subscribe(server.url, { WebSocket: Recording, onEvent: () => undefined });
    await server.connection(1);
    expect(urls).toEqual([`${server.url.replace('http:', 'ws:')}/api/ws`]);
  });

  it('says what to do when the runtime has no WebSocket', () => {
    const g = globalThis as { WebSocket?: unknown };
    const saved = g.WebSocket;
    delete g.WebSocket;
    try {
      expect(() => subscribe('http://127.0.0.1:1', { onEvent: () => undefined })).toThrow(
        /no global WebSocket.*pass options\.WebSocket/i,
      );
    } finally {
      if (saved) g.WebSocket = saved;
    }
  });
});

describe('subscribe: resume', () => {
  const withId = (id: string, m: RealtimeMessage) => ({ id, ...m });

  it('reconnects with ?last_event_id= of the last event, also one filtered out', async () => {
    server = await startServer();
    const events: string[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      events: ['new_message'],
      onEvent: (m) => events.push((m.payload as { id: string }).id),
    });
    const first = await server.connection(1);
    expect(server.paths[0]).toBe('/api/ws');
    first.send(JSON.stringify(withId('1700000000000-0', chat('m1'))));
    first.send(
      JSON.stringify({
        id: '1700000000000-1',
        event: 'like',
        payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' },
      }),
    );
    await until(() => sub!.lastEventId === '1700000000000-1');
    first.close(1012, 'service restart');
    await server.connection(2);
    expect(server.paths[1]).toBe('/api/ws?last_event_id=1700000000000-1');
    expect(events).toEqual(['m1']);
  });

  it('resync reaches onResync, not onEvent; 4400 forgets the id and reports a resync once reconnected without it', async () => {
    server = await startServer();
    const events: unknown[] = [];
    const calls: string[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      lastEventId: '5-0',
      onEvent: (m) => events.push(m),
      onOpen: () => calls.push('open'),
      onResync: () => calls.push('resync'),
    });
    const first = await server.connection(1);
    expect(server.paths[0]).toBe('/api/ws?last_event_id=5-0');
    first.send(JSON.stringify({ event: 'resync', payload: { reason: 'history_expired' } }));
    await until(() => calls.length === 2);
    first.send(JSON.stringify({ event: 'error', payload: { error: 'bad id' } }));
    first.close(4400, 'bad id');
    await server.connection(2);
    expect(server.paths[1]).toBe('/api/ws');
    await until(() => calls.length === 4);
    // The re-read is asked for once the new connection is open, not before.
    expect(calls).toEqual(['open', 'resync', 'open', 'resync']);
    expect(events).toEqual([]);
    expect(sub.state).not.toBe('closed');
  });

  it('a reconnection without an id (no event seen yet) reports a resync once open', async () => {
    server = await startServer();
    const calls: string[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      onEvent: () => undefined,
      onOpen: ({ reconnected }) => calls.push(reconnected ? 'reopen' : 'open'),
      onResync: () => calls.push('resync'),
    });
    const first = await server.connection(1);
    await until(() => calls.length === 1);
    first.close(1012, 'service restart');
    await server.connection(2);
    expect(server.paths[1]).toBe('/api/ws');
    await until(() => calls.length === 3);
    expect(calls).toEqual(['open', 'reopen', 'resync']);
  });

  it('a reconnection that resumes reports no resync: the missed events come as events', async () => {
    server = await startServer();
    const calls: string[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      onEvent: (m) => calls.push((m.payload as { id: string }).id),
      onOpen: ({ reconnected }) => calls.push(reconnected ? 'reopen' : 'open'),
      onResync: () => calls.push('resync'),
    });
    const first = await server.connection(1);
    first.send(JSON.stringify(withId('7-0', chat('m1'))));
    await until(() => sub!.lastEventId === '7-0');
    first.close(1012, 'service restart');
    const second = await server.connection(2);
    expect(server.paths[1]).toBe('/api/ws?last_event_id=7-0');
    second.send(JSON.stringify(withId('7-1', chat('m2')))); // replayed
    await until(() => calls.includes('m2'));
    expect(calls).toEqual(['open', 'm1', 'reopen', 'm2']);
  });

  it('resume: false reports no resync on a reconnection', async () => {
    server = await startServer();
    const calls: string[] = [];
    sub = subscribe(server.url, {
      initialDelayMs: 10,
      resume: false,
      onEvent: () => undefined,
      onOpen: ({ reconnected }) => calls.push(reconnected ? 'reopen' : 'open'),
      onResync: () => calls.push('resync'),
    });
    const first = await server.connection(1);
    await until(() => calls.length === 1);
    first.close(1012);
    await server.connection(2);
    await until(() => calls.length === 2);
    // A resync would have come right after the reopen, in the same turn.
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual(['open', 'reopen']);
  });

  it('copies the contract constants', () => {
    expect(WS_RESUME_PARAM).toBe(contract.WS_RESUME_PARAM);
    expect(WS_CLOSE_BAD_RESUME).toBe(contract.WS_CLOSE_BAD_RESUME);
  });

  it('resume: false never sends an id', async () => {
    server = await startServer();
    sub = subscribe(server.url, { initialDelayMs: 10, resume: false, onEvent: () => undefined });
    const first = await server.connection(1);
    first.send(JSON.stringify(withId('9-0', chat('m1'))));
    await until(() => sub!.lastEventId === '9-0'); // still tracked, never sent
    first.close(1012);
    await server.connection(2);
    expect(server.paths[1]).toBe('/api/ws');
  });
});
