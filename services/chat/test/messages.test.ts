// GET/POST /api/messages and likes against real PostgreSQL and Redis: limits, errors,
// geo names, sessions, and the events every write publishes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ChatMessage, ChatMessageListResponse, LikeEvent, NewMessageEvent } from '@svc/types';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

// Every test posts from its own address so the 10/min limit does not couple them.
let nextIp = 1;
const freshIp = () => `10.9.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;
const TOKYO_IP = '27.0.0.3';

const post = (content: unknown, ip = freshIp(), cookie?: string) => {
  const r = request(h.app).post('/api/messages').set('X-Forwarded-For', ip);
  if (cookie) r.set('Cookie', cookie);
  return r.send({ content });
};
const like = (id: string, ip = freshIp(), cookie?: string) => {
  const r = request(h.app).post(`/api/messages/${id}/like`).set('X-Forwarded-For', ip);
  if (cookie) r.set('Cookie', cookie);
  return r.send();
};

/**
 * GET /api/messages lists the newest messages, and the GET tests seed 120 messages dated up
 * to three minutes ahead: move these messages later still so a listing shows them.
 */
let ahead = 10 * 60_000;
async function newest(ids: string[]): Promise<ChatMessage[]> {
  for (const id of ids) {
    ahead += 1000;
    await h.db.message.update({ where: { id }, data: { createdAt: new Date(Date.now() + ahead) } });
  }
  const res = await request(h.app).get('/api/messages?limit=100');
  expect(res.status).toBe(200);
  return ChatMessageListResponse.parse(res.body).messages.filter((m) => ids.includes(m.id));
}

describe('POST /api/messages', () => {
  it('stores a trimmed chat message with a geo-based name and publishes new_message', async () => {
    const res = await post('  hello from Tokyo  ', TOKYO_IP);
    expect(res.status).toBe(201);
    const message = ChatMessage.parse(res.body.message);
    expect(message).toMatchObject({
      type: 'chat',
      content: 'hello from Tokyo',
      content_key: null,
      content_params: null,
      sender_location: 'JP|Tokyo',
      like_count: 0,
    });
    expect(message.sender_name).toMatch(/^Visitor from Tokyo #[0-9A-F]{4}$/);
    expect(res.headers['ratelimit-limit']).toBe('10');

    const [event] = await h.waitForEvents((e) => e.payload.id === message.id);
    expect(NewMessageEvent.parse(event)).toEqual({ event: 'new_message', payload: message });
    const row = await h.db.message.findUniqueOrThrow({ where: { id: message.id } });
    expect(row.senderIpHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.senderIpHash).not.toContain(TOKYO_IP);
  });

  it('gives the same visitor the same name within a day, another visitor another tag', async () => {
    const ip = '81.2.69.142';
    const a = (await post('one', ip)).body.message;
    const b = (await post('two', ip)).body.message;
    const other = (await post('three', '81.2.69.143')).body.message;
    expect(a.sender_name).toBe(b.sender_name);
    expect(a.sender_name).toMatch(/^Visitor from Newmarket #/);
    expect(a.sender_location).toBe('GB|Newmarket');
    expect(other.sender_name).not.toBe(a.sender_name);
  });

  it('names a visitor by country when the city is unknown, and "Visitor" when nothing is', async () => {
    const us = (await post('hi', '8.8.8.8')).body.message;
    expect(us.sender_name).toMatch(/^Visitor from United States #[0-9A-F]{4}$/);
    expect(us.sender_location).toBe('US|');
    const local = (await post('hi', '10.1.2.3')).body.message;
    expect(local.sender_name).toMatch(/^Visitor #[0-9A-F]{4}$/);
    expect(local.sender_location).toBeNull();
  });

  it('uses the username of a logged-in caller', async () => {
    const cookie = h.sessionCookie({ id: 'u-alice', username: 'alice' });
    const res = await post('signed in', TOKYO_IP, cookie);
    expect(res.status).toBe(201);
    expect(res.body.message.sender_name).toBe('alice');
    expect(res.body.message.sender_location).toBe('JP|Tokyo');
    const row = await h.db.message.findUniqueOrThrow({ where: { id: res.body.message.id } });
    expect(row.senderUserId).toBe('u-alice');
  });

  it('ignores an invalid session cookie and posts as a visitor', async () => {
    const res = await post('forged', freshIp(), 'sn_token=not-a-jwt');
    expect(res.status).toBe(201);
    expect(res.body.message.sender_name).toMatch(/^Visitor/);
  });

  it('accepts exactly 200 characters (counted as characters, not bytes)', async () => {
    const res = await post('字'.repeat(200));
    expect(res.status).toBe(201);
    expect(res.body.message.content).toHaveLength(200);
  });

  it.each([
    ['empty', ''],
    ['whitespace only', '   \n\t '],
    ['201 characters', 'x'.repeat(201)],
    ['a number', 42],
    ['null', null],
  ])('refuses %s content with 400', async (_label, content) => {
    const before = await h.db.message.count();
    const res = await post(content);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
    expect(await h.db.message.count()).toBe(before);
  });

  it('refuses a missing body, a non-JSON body and an oversized body', async () => {
    const ip = freshIp();
    const missing = await request(h.app).post('/api/messages').set('X-Forwarded-For', ip);
    expect(missing.status).toBe(400);
    const notJson = await request(h.app)
      .post('/api/messages')
      .set('X-Forwarded-For', ip)
      .set('Content-Type', 'application/json')
      .send('{"content":');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ error: 'Invalid JSON body' });
    const big = await request(h.app)
      .post('/api/messages')
      .set('X-Forwarded-For', ip)
      .send({ content: 'x'.repeat(10_000) });
    expect(big.status).toBe(413);
  });

  it('allows 10 posts per minute per IP, then 429 with Retry-After', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await post(`m${i}`, ip)).status).toBe(201);
    const res = await post('one too many', ip);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'Too many requests' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-remaining']).toBe('0');
    // Another IP is not affected.
    expect((await post('other ip')).status).toBe(201);
  });
});

describe('GET /api/messages', () => {
  it('returns the newest messages oldest first, default 50, limit up to 100', async () => {
    // Known timestamps: 120 messages one second apart, newer than anything posted above.
    const base = Date.now() + 60_000;
    await h.db.message.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({
        id: `seq-${String(i).padStart(3, '0')}`,
        content: `n${i}`,
        senderName: 'seed',
        createdAt: new Date(base + i * 1000),
      })),
    });
    const def = await request(h.app).get('/api/messages');
    expect(def.status).toBe(200);
    const { messages } = ChatMessageListResponse.parse(def.body);
    expect(messages).toHaveLength(50);
    expect(messages[0]!.content).toBe('n70');
    expect(messages[49]!.content).toBe('n119');

    const max = await request(h.app).get('/api/messages?limit=100');
    expect(max.body.messages).toHaveLength(100);
    expect(max.body.messages[99].content).toBe('n119');
    const three = await request(h.app).get('/api/messages?limit=3');
    expect(three.body.messages.map((m: ChatMessage) => m.content)).toEqual([
      'n117',
      'n118',
      'n119',
    ]);
  });

  it.each(['0', '101', '-1', 'abc', '2.5'])('refuses limit=%s with 400', async (limit) => {
    const res = await request(h.app).get(`/api/messages?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });

  it('answers 405 for other methods', async () => {
    const res = await request(h.app).delete('/api/messages');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
  });
});

describe('POST /api/messages/{id}/like', () => {
  it('counts one like per IP, 409 on a repeat, and publishes like with display names', async () => {
    const author = h.sessionCookie({ id: 'u-bob', username: 'bob' });
    const { id } = (await post('like me', freshIp(), author)).body.message;
    const ip = TOKYO_IP;
    const first = await like(id, ip);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ liked: true, like_count: 1 });
    const again = await like(id, ip);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'Already liked' });

    const [event] = await h.waitForEvents((e) => e.event === 'like' && e.payload.messageId === id);
    const parsed = LikeEvent.parse(event);
    expect(parsed.payload.toUser).toBe('bob');
    expect(parsed.payload.fromUser).toMatch(/^Visitor from Tokyo #/);
    expect(parsed.payload.like_count).toBe(1);
    expect(
      (await h.waitForEvents((e) => e.event === 'like' && e.payload.messageId === id, 2, 300))
        .length,
    ).toBe(1);
  });

  it('counts one like per user across IPs, and a user and a visitor on one IP separately', async () => {
    const { id } = (await post('popular')).body.message;
    const carol = h.sessionCookie({ id: 'u-carol', username: 'carol' });
    const ip = freshIp();
    expect((await like(id, ip, carol)).body).toEqual({ liked: true, like_count: 1 });
    expect((await like(id, freshIp(), carol)).status).toBe(409);
    expect((await like(id, ip)).body).toEqual({ liked: true, like_count: 2 });
    const row = await h.db.message.findUniqueOrThrow({ where: { id } });
    expect(row.likeCount).toBe(2);
    const [event] = await h.waitForEvents(
      (e) => e.event === 'like' && e.payload.messageId === id && e.payload.fromUser === 'carol',
    );
    expect(event).toBeDefined();
  });

  it('lists each message with its like count; a repeated like (409) does not count', async () => {
    const ids: string[] = [];
    for (const text of ['none', 'one', 'three']) ids.push((await post(text)).body.message.id);
    const [none, one, three] = ids as [string, string, string];
    const fan = freshIp();
    expect((await like(one, fan)).status).toBe(200);
    expect((await like(one, fan)).status).toBe(409);
    const dave = h.sessionCookie({ id: 'u-dave', username: 'dave' });
    expect((await like(one, freshIp(), dave)).status).toBe(200);
    expect((await like(one, freshIp(), dave)).status).toBe(409);
    for (let i = 0; i < 3; i++) expect((await like(three, freshIp())).status).toBe(200);
    expect((await like(three, fan)).body).toEqual({ liked: true, like_count: 4 });
    expect((await like(three, fan)).status).toBe(409);

    const messages = await newest(ids);
    expect(messages.map((m) => m.id)).toEqual(ids);
    const count = (id: string) => messages.find((m) => m.id === id)?.like_count;
    expect(count(none)).toBe(0);
    expect(count(one)).toBe(2);
    expect(count(three)).toBe(4);
    // The counter agrees with the like rows it summarises.
    for (const id of ids) {
      expect(await h.db.messageLike.count({ where: { messageId: id } })).toBe(count(id));
    }
  });

  it('answers 404 for an unknown message and 400 for an over-long id', async () => {
    const res = await like('no-such-message');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Message not found' });
    expect((await like('x'.repeat(129))).status).toBe(400);
  });

  it('counts concurrent likes from different IPs exactly', async () => {
    const { id } = (await post('race')).body.message;
    const results = await Promise.all(Array.from({ length: 8 }, () => like(id)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const row = await h.db.message.findUniqueOrThrow({ where: { id } });
    expect(row.likeCount).toBe(8);
    // Every answer and every event carries a distinct total: 1 … 8.
    expect(results.map((r) => r.body.like_count).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const events = await h.waitForEvents(
      (e) => e.event === 'like' && e.payload.messageId === id,
      8,
    );
    expect(
      events.map((e) => LikeEvent.parse(e).payload.like_count).sort((a, b) => a! - b!),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await newest([id])).map((m) => m.like_count)).toEqual([8]);
  });

  it('limits likes to 30 per minute per IP', async () => {
    const ip = freshIp();
    const ids = [];
    for (let i = 0; i < 31; i++) {
      ids.push(
        (await h.db.message.create({ data: { id: `lk-${i}`, content: 'x', senderName: 's' } })).id,
      );
    }
    for (const id of ids.slice(0, 30)) expect((await like(id, ip)).status).toBe(200);
    const res = await like(ids[30]!, ip);
    expect(res.status).toBe(429);
  });
});
