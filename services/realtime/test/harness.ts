// Spawned realtime (and chat) processes and real `ws` clients that record what they get.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket, type ClientOptions } from 'ws';
import { createLogger, createRedis, eventsStream, type Redis } from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  spawnService,
  waitForOk,
  type ServiceProcess,
} from '@svc/service-kit/testing';

export const REALTIME_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CHAT_ROOT = fileURLToPath(new URL('../../chat', import.meta.url));
export const INTERNAL_TOKEN = 'realtime-test-internal-token';

export async function startRealtime(prefix: string, env: Record<string, string> = {}) {
  const proc = await spawnService({
    cwd: REALTIME_ROOT,
    source: true,
    entry: 'src/main.ts',
    env: {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      INTERNAL_TOKEN,
      // No chat unless a test starts one: entrance reports fail fast and are ignored.
      CHAT_URL: 'http://127.0.0.1:9',
      ...env,
    },
  });
  await waitForOk(proc, '/readyz', 40_000);
  return proc;
}

export interface TestClient {
  ws: WebSocket;
  messages: Array<{ id?: string; event: string; payload: Record<string, unknown> }>;
  closed: Promise<{ code: number; reason: string }>;
  waitFor(
    pred: (m: TestClient['messages'][number]) => boolean,
    ms?: number,
  ): Promise<TestClient['messages'][number]>;
}

export async function connect(
  proc: ServiceProcess,
  options: ClientOptions = {},
  path = '/api/ws',
): Promise<TestClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${proc.port}${path}`, options);
  const messages: TestClient['messages'] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    closed,
    waitFor(pred, ms = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = messages.find(pred);
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message in ${ms} ms; got ${JSON.stringify(messages)}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Appends to the events stream as the kit's publisher does (XADD), but any body, so tests
 * can also append malformed entries; resolves with the entry id.
 */
export function publisher(): {
  redis: Redis;
  publish: (prefix: string, body: unknown) => Promise<string>;
} {
  const redis = createRedis(TEST_REDIS_URL, createLogger('pub', 'silent'), { forQueues: true });
  return {
    redis,
    publish: async (prefix, body) =>
      (await redis.xadd(
        eventsStream(prefix),
        '*',
        'm',
        typeof body === 'string' ? body : JSON.stringify(body),
      ))!,
  };
}

/** A message without its id (for comparing payloads). */
export const withoutId = ({ id: _id, ...rest }: TestClient['messages'][number]) => rest;

/** A counter or gauge value from a Prometheus text exposition. */
export async function metric(proc: ServiceProcess, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${proc.opsUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && l.includes(labels) && !l.startsWith('#'));
  return line ? Number(line.split(' ').pop()) : 0;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Status of a WebSocket handshake to `path` (101 when upgraded), without keeping the socket. */
export function upgradeStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      port,
      host: '127.0.0.1',
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
