// POST /internal/entrance (realtime → chat): token, validation, once per IP per 10 minutes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ENTRANCE_COOLDOWN_SECONDS, EntranceResponse, NewMessageEvent } from '@svc/types';
import { INTERNAL_TOKEN, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const entrance = (body: unknown, token: string | null = INTERNAL_TOKEN) => {
  const r = request(h.app).post('/internal/entrance');
  if (token !== null) r.set('X-Internal-Token', token);
  return r.send(body as object);
};

describe('POST /internal/entrance', () => {
  it('stores and publishes one entrance message per IP per 10 minutes', async () => {
    const first = await entrance({ ip: '27.0.0.3' });
    expect(first.status).toBe(200);
    const { message } = EntranceResponse.parse(first.body);
    expect(message).toMatchObject({
      type: 'entrance',
      content: 'entered',
      sender_location: 'JP|Tokyo',
      like_count: 0,
    });
    expect(message!.sender_name).toMatch(/^Visitor from Tokyo #/);
    const [event] = await h.waitForEvents((e) => e.payload.id === message!.id);
    expect(NewMessageEvent.parse(event).payload).toEqual(message);

    // Same IP again (also spelled IPv4-mapped): no new message.
    expect((await entrance({ ip: '27.0.0.3' })).body).toEqual({ message: null });
    expect((await entrance({ ip: '::ffff:27.0.0.3' })).body).toEqual({ message: null });
    expect(await h.db.message.count({ where: { type: 'entrance' } })).toBe(1);

    // The window is a Redis expiry of 10 minutes.
    const keys = await h.redis.keys(`${h.redisPrefix}chat:entrance:*`);
    expect(keys).toHaveLength(1);
    const ttl = await h.redis.ttl(keys[0]!);
    expect(ttl).toBeGreaterThan(ENTRANCE_COOLDOWN_SECONDS - 5);
    expect(ttl).toBeLessThanOrEqual(ENTRANCE_COOLDOWN_SECONDS);
    // Once the window has passed, the next connection enters again.
    await h.redis.del(keys[0]!);
    expect((await entrance({ ip: '27.0.0.3' })).body.message).not.toBeNull();
  });

  it('gives another IP its own entrance, also under concurrency exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => entrance({ ip: '2001:db8::7' })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.message !== null)).toHaveLength(1);
  });

  it('refuses callers without the right token with 403', async () => {
    for (const token of [null, '', 'wrong', INTERNAL_TOKEN + 'x']) {
      const res = await entrance({ ip: '1.2.3.4' }, token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Forbidden' });
    }
    expect(await h.db.message.count({ where: { senderLocation: 'AU|' } })).toBe(0);
  });

  it('refuses a body without a valid IP with 400', async () => {
    for (const body of [{}, { ip: 'not-an-ip' }, { ip: '1.2.3.4.5' }, { ip: 42 }]) {
      expect((await entrance(body)).status).toBe(400);
    }
  });

  it('is not under /api (the gateway routes only /api/messages* to chat)', async () => {
    expect(
      (await request(h.app).post('/api/internal/entrance').send({ ip: '1.2.3.4' })).status,
    ).toBe(404);
  });
});
