// Redis goes away behind a cuttable proxy: realtime reports not-ready, keeps its sockets
// open, and relays events again once Redis is back (ioredis re-subscribes by itself). Its
// connections going half-open (they stop answering, nothing closes them): the stream reader
// notices its read outliving the block and reconnects.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  clearRedisPrefix,
  startTcpProxy,
  testRedisPrefix,
  type ServiceProcess,
  type TcpProxy,
} from '@svc/service-kit/testing';
import { eventsChannel } from '@svc/service-kit';
import { connect, publisher, sleep, startRealtime, type TestClient } from './harness.js';

const prefix = testRedisPrefix();
const pub = publisher();
let proxy: TcpProxy;
let proc: ServiceProcess;

beforeAll(async () => {
  proxy = await startTcpProxy(6379);
  proc = await startRealtime(prefix, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
}, 60_000);
afterAll(async () => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
  await proxy.close();
  pub.redis.disconnect();
  await clearRedisPrefix(prefix);
});

const readyStatus = async () => (await fetch(`${proc.url}/readyz`)).status;

describe('Redis outage', () => {
  it('keeps sockets open while Redis is down and relays again when it returns', async () => {
    const client = await connect(proc);
    await proxy.cut();
    for (let i = 0; i < 50 && (await readyStatus()) !== 503; i++) await sleep(100);
    expect(await readyStatus()).toBe(503);
    client.ws.send(JSON.stringify({ event: 'ping' }));
    await client.waitFor((m) => m.event === 'pong');

    await proxy.restore();
    for (let i = 0; i < 100 && (await readyStatus()) !== 200; i++) await sleep(100);
    expect(await readyStatus()).toBe(200);
    // Re-subscription follows the reconnect: publish until one arrives.
    for (let i = 0; i < 50 && !client.messages.some((m) => m.event === 'like'); i++) {
      await pub.publish(prefix, {
        event: 'like',
        payload: { messageId: `m${i}`, fromUser: 'a', toUser: 'b' },
      });
      await sleep(100);
    }
    expect(client.messages.some((m) => m.event === 'like')).toBe(true);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
  }, 30_000);

  it('starts (and answers /healthz) while Redis is unreachable', async () => {
    await proxy.cut();
    const down = await import('@svc/service-kit/testing').then(({ spawnService, waitForOk }) =>
      spawnService({
        cwd: new URL('..', import.meta.url).pathname,
        source: true,
        entry: 'src/main.ts',
        env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_PREFIX: prefix },
      }).then(async (p) => {
        await waitForOk(p, '/healthz');
        return p;
      }),
    );
    expect((await fetch(`${down.url}/readyz`)).status).toBe(503);
    expect(await down.stop(15_000)).toBe(0);
    await proxy.restore();
  }, 60_000);

  it('relays again after its Redis connections go half-open', async () => {
    const client = await connect(proc);
    // The reader's XREAD blocks 5 s, then its deadline (5 s more) reconnects it.
    await expectLikesAcrossHalfOpen(client, 125, (like) =>
      pub.publish(prefix, { event: 'like', payload: like }),
    );
    expect(client.ws.readyState).toBe(client.ws.OPEN);
  }, 60_000);

  it('relays again after its connections go half-open, with the pub/sub relay (WS_RESUME=false)', async () => {
    const relay = await startRealtime(prefix, {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      WS_RESUME: 'false',
    });
    try {
      const client = await connect(relay);
      // A PING every 10 s, 5 s to answer, then the subscriber reconnects and re-subscribes.
      await expectLikesAcrossHalfOpen(client, 150, (like) =>
        pub.redis.publish(eventsChannel(prefix), JSON.stringify({ event: 'like', payload: like })),
      );
    } finally {
      await relay.stop(15_000);
    }
  }, 60_000);
});

const likes = (client: TestClient) => client.messages.filter((m) => m.event === 'like').length;

/** Sends likes, 200 ms apart, until `client` holds `count` of them or `tries` are used. */
async function likesUntil(
  client: TestClient,
  count: number,
  tries: number,
  send: (like: object) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < tries && likes(client) < count; i++) {
    await send({ messageId: `l${count}-${i}`, fromUser: 'a', toUser: 'b' });
    await sleep(200);
  }
}

/**
 * Likes sent with `send` reach `client`; then every connection open goes half-open (new
 * ones work: Redis itself is fine), and likes reach it again within `tries` sends.
 */
async function expectLikesAcrossHalfOpen(
  client: TestClient,
  tries: number,
  send: (like: object) => Promise<unknown>,
): Promise<void> {
  await likesUntil(client, 1, 50, send);
  expect(likes(client)).toBeGreaterThanOrEqual(1);
  proxy.stallOpen();
  const before = likes(client);
  await likesUntil(client, before + 1, tries, send);
  expect(likes(client)).toBeGreaterThan(before);
}

