// Bounded memory per client: a client that never reads is cut once its send buffer passes
// WS_MAX_BUFFERED_BYTES; a peer that stops answering pings is dropped; healthy clients on
// the same process keep receiving everything.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import { eventsStream } from '@svc/service-kit';
import { clearRedisPrefix, testRedisPrefix, type ServiceProcess } from '@svc/service-kit/testing';
import { connect, metric, publisher, sleep, startRealtime } from './harness.js';

const prefix = testRedisPrefix();
const pub = publisher();
let proc: ServiceProcess;
let pinging: ServiceProcess;

beforeAll(async () => {
  // The raw never-reading client answers no pings either: only the bound may cut it here.
  [proc, pinging] = await Promise.all([
    startRealtime(prefix, { WS_MAX_BUFFERED_BYTES: '65536' }),
    startRealtime(prefix, { WS_PING_INTERVAL_MS: '300' }),
  ]);
}, 60_000);
afterAll(async () => {
  for (const p of [proc, pinging]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  pub.redis.disconnect();
  await clearRedisPrefix(prefix);
});

/** Completes the WebSocket handshake on a raw socket, then never reads again. */
function neverReadingClient(port: number, path = '/api/ws'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
    });
    socket.once('data', (chunk) => {
      if (!chunk.toString().startsWith('HTTP/1.1 101')) return reject(new Error(chunk.toString()));
      socket.pause(); // from here on the kernel buffers fill, then the server's
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

describe('slow and dead clients', () => {
  it('cuts a client that never reads, while a reading client gets every event', async () => {
    const healthy = await connect(proc);
    const slow = await neverReadingClient(proc.port);
    let slowClosed = false;
    slow.on('close', () => (slowClosed = true));
    await sleep(100);
    expect(await metric(proc, 'realtime_connections')).toBe(2);

    // 48 KiB events in batches until the server cuts the slow client: first the loopback
    // socket buffers fill (tcp_rmem max 32 MB + wmem 4 MB on these machines), then the
    // 64 KiB bound. Capped at ~190 MB so a never-cutting server fails the test.
    const payload = { id: 'big', content: 'x'.repeat(48 * 1024) };
    let total = 0;
    const slowCuts = () => metric(proc, 'realtime_server_disconnects_total', 'reason="slow"');
    while (total < 4000 && (await slowCuts()) === 0) {
      for (let i = 0; i < 50; i++, total++) {
        await pub.publish(prefix, { event: 'site_update', payload: { ...payload, n: total } });
      }
      await sleep(20); // let the healthy client keep up
    }
    const last = total - 1;
    await healthy.waitFor((m) => m.payload.n === last, 15_000);
    expect(healthy.messages).toHaveLength(total);
    expect(await metric(proc, 'realtime_server_disconnects_total', 'reason="slow"')).toBe(1);
    expect(await metric(proc, 'realtime_connections')).toBe(1);
    slow.resume(); // read what was buffered; the server had already cut the connection
    for (let i = 0; i < 50 && !slowClosed; i++) await sleep(100);
    expect(slowClosed).toBe(true);
    healthy.ws.close();
  }, 60_000);

  it('cuts a resuming client that never reads: its replay stalls, held-back live events pass the bound', async () => {
    const before = await pub.publish(prefix, { event: 'like', payload: { n: -1 } });
    // A history larger than the loopback buffers (≈ 36 MB): the replay cannot finish.
    const payload = { id: 'big', content: 'x'.repeat(48 * 1024) };
    for (let i = 0; i < 1000; i++)
      await pub.publish(prefix, { event: 'site_update', payload: { ...payload, n: i } });
    // The replica's XREAD loop relays in batches of up to 500 and lags on a loaded machine:
    // wait until it relayed every entry of the stream, so no history event reaches the
    // clients below as a live one (it would cut the resuming client before any live event,
    // and burst megabytes at the reading client). No resume ran yet on this process, so
    // every entry it parsed came from that loop.
    const entries = await pub.redis.xlen(eventsStream(prefix));
    for (let i = 0; i < 300; i++) {
      if ((await metric(proc, 'realtime_events_received_total', 'result="relayed"')) >= entries)
        break;
      await sleep(100);
    }
    expect(await metric(proc, 'realtime_events_received_total', 'result="relayed"')).toBe(entries);
    // A reading client connected now gets exactly the live events (not the 48 MB history,
    // which a loaded CI machine's test process would be slow to take in).
    const healthy = await connect(proc);
    const cutsBefore = await metric(proc, 'realtime_server_disconnects_total', 'reason="slow"');
    const slow = await neverReadingClient(proc.port, `/api/ws?last_event_id=${before}`);
    let slowClosed = false;
    slow.on('close', () => (slowClosed = true));
    await sleep(1500); // the replay sends what the buffers take, then waits
    let live = 0;
    while (
      live < 200 &&
      (await metric(proc, 'realtime_server_disconnects_total', 'reason="slow"')) === cutsBefore
    ) {
      await pub.publish(prefix, {
        event: 'site_update',
        payload: { ...payload, n: 1000 + live++ },
      });
      await sleep(20);
    }
    // Two 48 KiB live events already pass the 64 KiB bound on what is held back.
    expect(live).toBeLessThanOrEqual(5);
    expect(await metric(proc, 'realtime_server_disconnects_total', 'reason="slow"')).toBe(
      cutsBefore + 1,
    );
    slow.resume();
    for (let i = 0; i < 50 && !slowClosed; i++) await sleep(100);
    expect(slowClosed).toBe(true);
    // The reading client on the same process got every event.
    await healthy.waitFor((m) => m.payload.n === 1000 + live - 1, 30_000);
    // Every live event, in order, nothing else.
    expect(healthy.messages.map((m) => m.payload.n)).toEqual(
      Array.from({ length: live }, (_, i) => 1000 + i),
    );
    healthy.ws.close();
  }, 90_000);

  it('drops a peer that stops answering protocol pings and keeps one that answers', async () => {
    const answering = await connect(pinging);
    const silent = await connect(pinging, { autoPong: false });
    let pings = 0;
    silent.ws.on('ping', () => pings++);
    const { code } = await silent.closed;
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(code).toBe(1006); // terminated without a close frame
    expect(
      await metric(pinging, 'realtime_server_disconnects_total', 'reason="dead"'),
    ).toBeGreaterThanOrEqual(1);
    await sleep(800); // several more ping rounds
    expect(answering.ws.readyState).toBe(WebSocket.OPEN);
    answering.ws.close();
  }, 20_000);
});
