// WS_MAX_CONNECTIONS_PER_IP on the real process: one client address (as the gateway
// reports it) holds at most that many open WebSockets; more get 429 JSON; a closed socket
// frees its slot; other addresses are not affected.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { clearRedisPrefix, testRedisPrefix, type ServiceProcess } from '@svc/service-kit/testing';
import { connect, sleep, startRealtime, type TestClient } from './harness.js';

const prefix = testRedisPrefix();
let proc: ServiceProcess;
const open: TestClient[] = [];

beforeAll(async () => {
  proc = await startRealtime(prefix, { WS_MAX_CONNECTIONS_PER_IP: '2' });
}, 60_000);
afterAll(async () => {
  for (const c of open) c.ws.terminate();
  await proc?.stop();
  await clearRedisPrefix(prefix);
});

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

/** The handshake's refusal: status and JSON body. */
function refused(ip: string): Promise<{ status: number; body: unknown; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${proc.port}/api/ws`, from(ip));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(text),
          retryAfter: res.headers['retry-after'],
        }),
      );
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('the handshake was accepted'));
    });
    ws.on('error', () => undefined);
  });
}

describe('open WebSockets per client IP', () => {
  it('refuses the third socket of one address with 429, not another address', async () => {
    open.push(await connect(proc, from('203.0.113.7')));
    open.push(await connect(proc, from('203.0.113.7')));
    expect(await refused('203.0.113.7')).toEqual({
      status: 429,
      body: { error: 'Too many requests' },
      retryAfter: '5',
    });
    open.push(await connect(proc, from('203.0.113.8')));
  });

  it('frees the slot when a socket closes', async () => {
    const first = open.shift()!;
    first.ws.close();
    await first.closed;
    // The server sees the TCP close right after the close handshake.
    let again: TestClient | undefined;
    for (let i = 0; i < 40 && !again; i++) {
      again = await connect(proc, from('203.0.113.7')).catch(() => undefined);
      if (!again) await sleep(50);
    }
    expect(again).toBeDefined();
    open.push(again!);
    expect((await refused('203.0.113.7')).status).toBe(429);
  });
});
