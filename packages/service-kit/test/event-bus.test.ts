import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEventPublisher, eventsChannel } from '../src/event-bus.js';
import { createLogger } from '../src/logger.js';
import { createRedis, waitForRedis } from '../src/redis.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../src/testing.js';

const logger = createLogger('test', 'silent');
const prefix = testRedisPrefix();
const pub = createRedis(TEST_REDIS_URL, logger);
const sub = createRedis(TEST_REDIS_URL, logger, { forQueues: true });

beforeAll(async () => {
  await Promise.all([waitForRedis(pub), waitForRedis(sub)]);
});
afterAll(() => {
  pub.disconnect();
  sub.disconnect();
});

describe('event publisher', () => {
  it('publishes { event, payload } on the prefixed channel', async () => {
    await sub.subscribe(eventsChannel(prefix));
    const received = new Promise<string>((resolve) => sub.once('message', (_ch, msg) => resolve(msg)));
    await createEventPublisher(pub, prefix).publish('site_update', { id: 's1', title: 'Hello' });
    expect(JSON.parse(await received)).toEqual({ event: 'site_update', payload: { id: 's1', title: 'Hello' } });
  });
});
