import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  EVENT_HISTORY,
  createEventPublisher,
  eventsChannel,
  eventsStream,
} from '../src/redis/event-bus.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import { TEST_REDIS_URL, clearRedisPrefix, testRedisPrefix } from '../src/testing/index.js';

const logger = createLogger('test', 'silent');
const prefix = testRedisPrefix();
const pub = createRedis(TEST_REDIS_URL, logger);
const sub = createRedis(TEST_REDIS_URL, logger, { forQueues: true });

beforeAll(async () => {
  await Promise.all([waitForRedis(pub), waitForRedis(sub)]);
});
afterAll(async () => {
  pub.disconnect();
  sub.disconnect();
  await clearRedisPrefix(prefix);
});

/** The stream's XINFO as an object (max-deleted-entry-id, length…). */
async function info(key: string): Promise<Record<string, unknown>> {
  const flat = (await pub.call('XINFO', 'STREAM', key)) as unknown[];
  const out: Record<string, unknown> = {};
  for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}

describe('event publisher', () => {
  it('appends { event, payload } to the stream (its id is the event id) and publishes it', async () => {
    await sub.subscribe(eventsChannel(prefix));
    const received = new Promise<string>((resolve) =>
      sub.once('message', (_ch, msg) => resolve(msg)),
    );
    const id = await createEventPublisher(pub, prefix).publish('site_update', {
      id: 's1',
      title: 'Hello',
    });
    expect(id).toMatch(/^\d+-\d+$/);
    expect(JSON.parse(await received)).toEqual({
      event: 'site_update',
      payload: { id: 's1', title: 'Hello' },
    });
    const entries = await pub.xrange(eventsStream(prefix), '-', '+');
    expect(entries).toEqual([
      [id, ['m', JSON.stringify({ event: 'site_update', payload: { id: 's1', title: 'Hello' } })]],
    ]);
  });

  it('ids grow in publish order across publishers', async () => {
    const key = `${prefix}order:`;
    const a = createEventPublisher(pub, key);
    const other = createRedis(TEST_REDIS_URL, logger);
    await waitForRedis(other);
    const b = createEventPublisher(other, key);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await (i % 2 ? a : b).publish('like', { i }));
    const stored = (await pub.xrange(eventsStream(key), '-', '+')).map(([id]) => id);
    expect(stored).toEqual(ids);
    other.disconnect();
  });

  it('keeps the newest minEvents and everything younger than minAgeMs, and records what it dropped', async () => {
    const key = `${prefix}trim:`;
    // Age 0: only the count rule keeps entries.
    const byCount = createEventPublisher(pub, key, { minEvents: 5, minAgeMs: 0, maxEvents: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await byCount.publish('like', { i }));
    expect(await pub.xlen(eventsStream(key))).toBe(5);
    const kept = (await pub.xrange(eventsStream(key), '-', '+')).map(([id]) => id);
    expect(kept).toEqual(ids.slice(-5));
    expect((await info(eventsStream(key)))['max-deleted-entry-id']).toBe(ids[24]);

    // A long age: nothing young is dropped even past minEvents.
    const key2 = `${prefix}trim2:`;
    const byAge = createEventPublisher(pub, key2, {
      minEvents: 5,
      minAgeMs: 60_000,
      maxEvents: 1000,
    });
    for (let i = 0; i < 30; i++) await byAge.publish('like', { i });
    expect(await pub.xlen(eventsStream(key2))).toBe(30);
  });

  it('the hard cap bounds the stream whatever the age', async () => {
    const key = `${prefix}cap:`;
    const capped = createEventPublisher(pub, key, {
      minEvents: 5,
      minAgeMs: 60_000,
      maxEvents: 200,
    });
    const p = pub.pipeline();
    for (let i = 0; i < 1500; i++)
      (p as unknown as { svcAppendEvent: (...a: unknown[]) => void }).svcAppendEvent(
        eventsStream(key),
        'm',
        '{"event":"like","payload":{}}',
        eventsChannel(key),
        5,
        60_000,
        200,
      );
    await p.exec();
    await capped.publish('like', { last: true });
    expect(await pub.xlen(eventsStream(key))).toBe(200);
  });

  it('the default window is at least 10 minutes and 10,000 events', () => {
    expect(EVENT_HISTORY.minEvents).toBeGreaterThanOrEqual(10_000);
    expect(EVENT_HISTORY.minAgeMs).toBeGreaterThanOrEqual(600_000);
    expect(EVENT_HISTORY.maxEvents).toBeGreaterThan(EVENT_HISTORY.minEvents);
  });
});
