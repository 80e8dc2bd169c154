// Resume across replica failures: three realtime processes on one Redis. A client
// on A1 (SIGKILLed) and one on A2 (SIGTERM: 1012) reconnect to B with their last id while
// 1,000 events are published before, during and after; each gets all 1,000 exactly once,
// in order. Then: an id older than the history → resync; malformed or future → error + 4400.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import { WS_CLOSE_BAD_RESUME } from '@svc/types';
import { createEventPublisher, eventsStream } from '@svc/service-kit';
import { clearRedisPrefix, testRedisPrefix, type ServiceProcess } from '@svc/service-kit/testing';
import { connect, metric, publisher, sleep, startRealtime, type TestClient } from './harness.js';

const prefix = testRedisPrefix();
const pub = publisher();
const events = createEventPublisher(pub.redis, prefix);
let a1: ServiceProcess;
let a2: ServiceProcess;
let b: ServiceProcess;
/** Started after the 1,000 events: they are not in its memory, it reads Redis. */
let c: ServiceProcess;
const sockets: WebSocket[] = [];
/** The ids of the 1,000 events, in publish order. */
const ids: string[] = [];

beforeAll(async () => {
  [a1, a2, b] = await Promise.all([
    startRealtime(prefix),
    startRealtime(prefix),
    startRealtime(prefix),
  ]);
}, 120_000);
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  for (const p of [a1, a2, b, c]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  pub.redis.disconnect();
  await clearRedisPrefix(prefix);
});

/**
 * A client that keeps the id of the last event and, when its socket closes, reconnects to
 * `fallback` with `?last_event_id=` (as @svc/client does), recording every event it gets.
 */
function resumingClient(first: ServiceProcess, fallback: ServiceProcess) {
  const got: Array<{ id: string; n: number }> = [];
  const closes: number[] = [];
  let lastId: string | undefined;
  let onOpen: () => void;
  const opened = new Promise<void>((r) => (onOpen = r));
  const open = (p: ServiceProcess) => {
    const q = lastId ? `?last_event_id=${lastId}` : '';
    const ws = new WebSocket(`ws://127.0.0.1:${p.port}/api/ws${q}`);
    sockets.push(ws);
    ws.on('open', () => onOpen());
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as {
        id?: string;
        event: string;
        payload: { n: number };
      };
      if (m.event !== 'site_update' || !m.id) return;
      got.push({ id: m.id, n: m.payload.n });
      lastId = m.id;
    });
    ws.once('close', (code) => {
      closes.push(code);
      if (closes.length < 3) setTimeout(() => open(fallback), 20 + Math.random() * 80);
    });
  };
  open(first);
  return { got, closes, opened };
}

describe('resume across replica failures', () => {
  it('a client on a SIGKILLed replica and one on a gracefully stopped replica get all 1,000 events exactly once, in order', async () => {
    const killed = resumingClient(a1, b);
    const stopped = resumingClient(a2, b);
    await Promise.all([killed.opened, stopped.opened]);

    let a2Exit: Promise<number | null> | undefined;
    for (let n = 0; n < 1000; n++) {
      ids.push(await events.publish('site_update', { id: `s${n}`, n }));
      if (n === 299) a1.child.kill('SIGKILL');
      if (n === 599) a2Exit = a2.stop(15_000);
      if (n % 10 === 9) await sleep(5); // ~1 s of publishing, failures in the middle
    }
    expect(await a2Exit).toBe(0);

    const expected = ids.map((id, n) => ({ id, n }));
    for (const c of [killed, stopped]) {
      for (let i = 0; i < 100 && c.got.length < 1000; i++) await sleep(100);
      expect(c.got).toEqual(expected);
    }
    expect(killed.closes[0]).toBe(1006); // no close frame from a killed process
    expect(stopped.closes[0]).toBe(1012); // Service Restart
    expect(await metric(b, 'realtime_resumes_total', 'result="replayed"')).toBe(2);
    // B read all 1,000 itself: replays come from its memory (or from Redis when a client's
    // id is ahead of B's own read position for a moment).
    expect(await metric(b, 'realtime_history_reads_total', 'source="memory"')).toBeGreaterThan(0);
  }, 60_000);

  it('a replica started later replays from Redis, in pages, exactly the events after the id', async () => {
    c = await startRealtime(prefix);
    const client = await connect(c, {}, `/api/ws?last_event_id=${ids[199]}`);
    sockets.push(client.ws);
    await client.waitFor((m) => m.id === ids[999]);
    await sleep(200);
    expect(client.messages.map((m) => m.id)).toEqual(ids.slice(200));
    expect(client.messages.map((m) => m.payload.n)).toEqual(ids.slice(200).map((_, i) => i + 200));
    // 800 entries: two pages of at most 500.
    expect(await metric(c, 'realtime_history_reads_total', 'source="redis"')).toBe(2);
  }, 60_000);

  it('resuming from the newest id replays nothing and then delivers live events', async () => {
    const newest = (await pub.redis.xrevrange(eventsStream(prefix), '+', '-', 'COUNT', 1))[0]![0];
    const client = await connect(b, {}, `/api/ws?last_event_id=${newest}`);
    sockets.push(client.ws);
    await sleep(200);
    expect(client.messages).toEqual([]);
    const id = await events.publish('like', { messageId: 'm1', fromUser: 'a', toUser: 'b' });
    await client.waitFor((m) => m.event === 'like');
    expect(client.messages).toEqual([
      { id, event: 'like', payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' } },
    ]);
  });

  it('an id older than the kept history gets resync, then live events', async () => {
    const stream = eventsStream(prefix);
    const [oldest] = (await pub.redis.xrange(stream, '-', '+', 'COUNT', 3)).map(([id]) => id);
    // What the publisher's trimming does once events pass the window (XDEL of the oldest).
    const doomed = (await pub.redis.xrange(stream, '-', '+', 'COUNT', 10)).map(([id]) => id);
    await pub.redis.xdel(stream, ...doomed);
    // C keeps no memory of these (it started after them): the history decides.
    const client = await connect(c, {}, `/api/ws?last_event_id=${oldest}`);
    sockets.push(client.ws);
    await client.waitFor((m) => m.event === 'resync');
    const id = await events.publish('like', { messageId: 'm2', fromUser: 'a', toUser: 'b' });
    await client.waitFor((m) => m.id === id);
    expect(client.messages).toEqual([
      { event: 'resync', payload: { reason: 'history_expired' } },
      { id, event: 'like', payload: { messageId: 'm2', fromUser: 'a', toUser: 'b' } },
    ]);
    expect(await metric(c, 'realtime_resumes_total', 'result="resync"')).toBe(1);
  });

  it.each([
    ['malformed', 'abc', 'last_event_id must be an event id like 1700000000000-0'],
    ['empty', '', 'last_event_id must be an event id like 1700000000000-0'],
    ['leading zero', '01-0', 'last_event_id must be an event id like 1700000000000-0'],
    [
      'future',
      '99999999999999-0',
      'last_event_id is newer than any event: reconnect without it and re-read',
    ],
    [
      'past 2^64',
      '99999999999999999999-0',
      'last_event_id is newer than any event: reconnect without it and re-read',
    ],
  ])(
    'a %s id gets an error event and close 4400, and the replica goes on',
    async (_k, id, error) => {
      const c: TestClient = await connect(b, {}, `/api/ws?last_event_id=${id}`);
      const closed = await c.closed;
      expect(closed.code).toBe(WS_CLOSE_BAD_RESUME);
      expect(c.messages).toEqual([{ event: 'error', payload: { error } }]);
      expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    },
  );
});
