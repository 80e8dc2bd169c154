// Two realtime processes on one Redis: an event published once reaches every client of
// both exactly once; pings, pongs, plain HTTP on /api/ws, metrics, and the 1012 close
// on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { clearRedisPrefix, testRedisPrefix, type ServiceProcess } from '@svc/service-kit/testing';
import {
  connect,
  metric,
  publisher,
  sleep,
  startRealtime,
  upgradeStatus,
  type TestClient,
} from './harness.js';

const prefix = testRedisPrefix();
const pub = publisher();
let a: ServiceProcess;
let b: ServiceProcess;
const clients: TestClient[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startRealtime(prefix), startRealtime(prefix)]);
}, 90_000);
afterAll(async () => {
  for (const c of clients) c.ws.terminate();
  for (const p of [a, b]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  pub.redis.disconnect();
  await clearRedisPrefix(prefix);
});

describe('realtime fan-out across replicas', () => {
  it('delivers each published event exactly once to every client of both processes', async () => {
    for (const p of [a, a, b, b, b]) clients.push(await connect(p));
    const event = {
      event: 'new_message',
      payload: { id: 'm1', type: 'chat', content: 'hi 你好', sender_name: 'x' },
    };
    const id1 = await pub.publish(prefix, event);
    const id2 = await pub.publish(prefix, {
      event: 'like',
      payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' },
    });
    for (const c of clients) await c.waitFor((m) => m.event === 'like');
    await sleep(200);
    for (const c of clients) {
      // Each event carries its stream id, the same on both replicas.
      expect(c.messages).toEqual([
        { id: id1, ...event },
        { id: id2, event: 'like', payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' } },
      ]);
    }
    expect(await metric(a, 'realtime_connections')).toBe(2);
    expect(await metric(b, 'realtime_connections')).toBe(3);
    expect(await metric(b, 'realtime_messages_delivered_total')).toBe(6);
  });

  it('drops malformed events instead of sending them to clients', async () => {
    const [c] = clients;
    const before = c!.messages.length;
    await pub.publish(prefix, 'not json');
    await pub.publish(prefix, { event: 'x' });
    const id = await pub.publish(prefix, { event: 'site_update', payload: { id: 's1' } });
    await c!.waitFor((m) => m.event === 'site_update');
    expect(c!.messages.slice(before)).toEqual([
      { id, event: 'site_update', payload: { id: 's1' } },
    ]);
    expect(await metric(a, 'realtime_events_received_total', 'result="dropped"')).toBe(2);
  });

  it('answers {"event":"ping"} with a pong and ignores anything else a client sends', async () => {
    const c = clients[0]!;
    c.ws.send('hello');
    c.ws.send(JSON.stringify({ event: 'subscribe' }));
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    c.ws.send(JSON.stringify({ event: 'ping' }));
    const pong = await c.waitFor((m) => m.event === 'pong');
    expect(pong).toEqual({ event: 'pong', payload: {} });
    await sleep(100);
    expect(c.messages.filter((m) => m.event === 'pong')).toHaveLength(1);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('closes a client that sends more than the small payload limit', async () => {
    const c = await connect(a);
    c.ws.send('x'.repeat(5000));
    expect((await c.closed).code).toBe(1009); // Message Too Big
  });

  it('answers plain HTTP on /api/ws with 426 and refuses upgrades elsewhere with 404', async () => {
    const res = await fetch(`${a.url}/api/ws`);
    expect(res.status).toBe(426);
    expect(await res.json()).toEqual({ error: 'Upgrade required' });
    expect(await upgradeStatus(a.port, '/api/other')).toBe(404);
    expect(await upgradeStatus(a.port, '/api/ws?x=1')).toBe(101);
  });

  it('closes every socket with 1012 on SIGTERM, then exits 0', async () => {
    const onB = clients.slice(2);
    const exit = b.stop(15_000);
    const closes = await Promise.all(onB.map((c) => c.closed));
    expect(closes.map((c) => c.code)).toEqual([1012, 1012, 1012]);
    expect(await exit).toBe(0);
    // The other replica keeps serving.
    await pub.publish(prefix, {
      event: 'like',
      payload: { messageId: 'm2', fromUser: 'a', toUser: 'b' },
    });
    await clients[0]!.waitFor((m) => m.event === 'like' && m.payload.messageId === 'm2');
  }, 30_000);
});
