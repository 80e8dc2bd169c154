// Moderation of chat against real PostgreSQL and Redis: a moderator deletes a
// message (no longer listed nor likeable, `message_deleted { id }` published on the events
// channel realtime relays) and mutes the sender of a message (a logged-in user by user id,
// a visitor by the keyed hash of their IP): their posts answer 403 `You are muted until …`
// until the mute expires. 401/403 for non-moderators on both endpoints.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ChatMessageListResponse, MODERATORS_ONLY, MessageDeletedEvent } from '@svc/types';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let moderator: string;
let member: string;
beforeAll(async () => {
  h = await startHarness();
  moderator = h.sessionCookie({ id: 'mod-1', username: 'mod', isModerator: true });
  member = h.sessionCookie({ id: 'member-1', username: 'member' });
});
afterAll(async () => {
  await h.close();
});

let nextIp = 1;
const freshIp = () => `10.77.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

const post = (content: string, ip = freshIp(), cookie?: string) => {
  const r = request(h.app).post('/api/messages').set('X-Forwarded-For', ip);
  if (cookie) r.set('Cookie', cookie);
  return r.send({ content });
};
const del = (id: string, cookie?: string) => {
  const r = request(h.app).delete(`/api/moderation/messages/${id}`);
  return cookie ? r.set('Cookie', cookie) : r;
};
const mute = (body: unknown, cookie?: string) => {
  const r = request(h.app).post('/api/moderation/chat/mutes');
  return (cookie ? r.set('Cookie', cookie) : r).send(body as object);
};
const muteKeys = () => h.redis.keys(`${h.redisPrefix}chat:mute:*`);

describe('DELETE /api/moderation/messages/{id}', () => {
  it('marks the message deleted, stops listing it, publishes message_deleted { id }', async () => {
    const posted = await post('spam spam');
    expect(posted.status).toBe(201);
    const id = posted.body.message.id as string;
    const res = await del(id, moderator);
    expect([res.status, res.body]).toEqual([200, { deleted: true, id }]);
    const [event] = await h.waitForEvents(
      (e) => e.event === 'message_deleted' && e.payload.id === id,
    );
    expect(MessageDeletedEvent.parse(event)).toEqual({ event: 'message_deleted', payload: { id } });
    const list = ChatMessageListResponse.parse(
      (await request(h.app).get('/api/messages?limit=100')).body,
    );
    expect(list.messages.map((m) => m.id)).not.toContain(id);
    expect((await h.db.message.findUniqueOrThrow({ where: { id } })).deletedAt).toBeInstanceOf(
      Date,
    );
    // Already deleted, unknown, over-long: 404; a deleted message cannot be liked.
    for (const gone of [id, 'no-such-message', 'x'.repeat(129)])
      expect([(await del(gone, moderator)).status, (await del(gone, moderator)).body]).toEqual([
        404,
        { error: 'Message not found' },
      ]);
    const liked = await request(h.app)
      .post(`/api/messages/${id}/like`)
      .set('X-Forwarded-For', freshIp());
    expect(liked.status).toBe(404);
  });

  it('401 without a session, 403 Moderators only for a member; the message stays', async () => {
    const id = (await post('stays')).body.message.id as string;
    expect([(await del(id)).status, (await del(id)).body]).toEqual([
      401,
      { error: 'Authentication required' },
    ]);
    expect([(await del(id, member)).status, (await del(id, member)).body]).toEqual([
      403,
      { error: MODERATORS_ONLY },
    ]);
    expect((await h.db.message.findUniqueOrThrow({ where: { id } })).deletedAt).toBeNull();
  });
});

describe('POST /api/moderation/chat/mutes', () => {
  it('mutes a visitor by IP hash: 403 until the mute expires, others unaffected', async () => {
    const ip = freshIp();
    const id = (await post('rude', ip)).body.message.id as string;
    const res = await mute({ sender: id, minutes: 5 }, moderator);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      muted: true,
      sender_kind: 'visitor',
      muted_until: expect.any(String),
    });
    const until = new Date(res.body.muted_until as string).getTime();
    expect(Math.abs(until - (Date.now() + 5 * 60_000))).toBeLessThan(5000);

    const refused = await post('again', ip);
    expect([refused.status, refused.body]).toEqual([
      403,
      { error: `You are muted until ${res.body.muted_until}` },
    ]);
    // Logging in does not lift a visitor's mute (same IP hash); another IP posts freely.
    expect((await post('as member', ip, member)).status).toBe(403);
    expect((await post('someone else')).status).toBe(201);

    // Expiry: shorten the key's TTL instead of waiting minutes.
    const keys = await muteKeys();
    expect(keys).toHaveLength(1);
    await h.redis.set(keys[0]!, String(Date.now() + 300), 'PX', 300);
    expect((await post('still muted', ip)).status).toBe(403);
    await new Promise((r) => setTimeout(r, 450));
    expect((await post('back', ip)).status).toBe(201);
    expect(await muteKeys()).toEqual([]);
  });

  it('mutes a logged-in sender by user id, from any IP, even after the message is deleted', async () => {
    const author = h.sessionCookie({ id: 'author-1', username: 'author' });
    const id = (await post('hi', freshIp(), author)).body.message.id as string;
    expect((await del(id, moderator)).status).toBe(200);
    const res = await mute({ sender: id, minutes: 1 }, moderator);
    expect(res.body).toMatchObject({ muted: true, sender_kind: 'user' });
    for (const ip of [freshIp(), freshIp()]) {
      const refused = await post('again', ip, author);
      expect([refused.status, refused.body]).toEqual([
        403,
        { error: `You are muted until ${res.body.muted_until}` },
      ]);
    }
    expect((await post('member speaks', freshIp(), member)).status).toBe(201);
    const [key] = await muteKeys();
    expect(key).toBe(`${h.redisPrefix}chat:mute:user:author-1`);
    const ttl = await h.redis.pttl(key!);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await h.redis.del(key!);
    expect((await post('free', freshIp(), author)).status).toBe(201);
  });

  it('404 for an unknown message or a system message; 400 for bad minutes or sender', async () => {
    await h.db.message.create({
      data: {
        id: 'sys-mute-test',
        type: 'system',
        content: 'x',
        senderName: 'System',
        senderLocation: null,
      },
    });
    const unknown = await mute({ sender: 'no-such-message', minutes: 1 }, moderator);
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Message not found' }]);
    const system = await mute({ sender: 'sys-mute-test', minutes: 1 }, moderator);
    expect([system.status, system.body]).toEqual([
      404,
      { error: 'This message has no sender to mute' },
    ]);
    const id = (await post('x')).body.message.id as string;
    for (const body of [
      { sender: id },
      { sender: id, minutes: 0 },
      { sender: id, minutes: 1.5 },
      { sender: id, minutes: 43_201 },
      { minutes: 1 },
    ])
      expect((await mute(body, moderator)).status).toBe(400);
    expect(await muteKeys()).toEqual([]);
  });

  it('401 without a session, 403 Moderators only for a member; nobody muted', async () => {
    const id = (await post('x')).body.message.id as string;
    expect([
      (await mute({ sender: id, minutes: 1 })).status,
      (await mute({ sender: id, minutes: 1 })).body,
    ]).toEqual([401, { error: 'Authentication required' }]);
    const other = await mute({ sender: id, minutes: 1 }, member);
    expect([other.status, other.body]).toEqual([403, { error: MODERATORS_ONLY }]);
    expect(await muteKeys()).toEqual([]);
  });
});
