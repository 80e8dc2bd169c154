// GET /internal/users/{id}/export (auth → chat, the data export): against real PostgreSQL and
// Redis, the user's messages (a deleted one too), likes, running mute and the audit entries
// by and about them; nothing of another user; the token guard; an unknown user's empty part.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ChatExportPart, internalUserExportPath } from '@svc/types';
import { INTERNAL_TOKEN, startHarness, type Harness } from './harness.js';

let h: Harness;
let ann: string;
let bob: string;
let moderator: string;
beforeAll(async () => {
  h = await startHarness();
  ann = h.sessionCookie({ id: 'ann-1', username: 'ann' });
  bob = h.sessionCookie({ id: 'bob-1', username: 'bob' });
  moderator = h.sessionCookie({ id: 'mod-1', username: 'mod', isModerator: true });
});
afterAll(async () => {
  await h.close();
});

let nextIp = 1;
const post = async (content: string, cookie?: string) => {
  const r = request(h.app).post('/api/messages').set('X-Forwarded-For', `10.88.0.${nextIp++}`);
  const res = await (cookie ? r.set('Cookie', cookie) : r).send({ content });
  expect(res.status).toBe(201);
  return res.body.message.id as string;
};
const like = async (id: string, cookie: string) => {
  const res = await request(h.app)
    .post(`/api/messages/${id}/like`)
    .set('X-Forwarded-For', `10.88.1.${nextIp++}`)
    .set('Cookie', cookie);
  expect(res.status).toBe(200);
};
const exportOf = (userId: string, token: string | null = INTERNAL_TOKEN) => {
  const r = request(h.app).get(internalUserExportPath(userId));
  return token === null ? r : r.set('X-Internal-Token', token);
};

describe('GET /internal/users/{id}/export', () => {
  it("answers the user's messages, likes, mute and audit entries, and nothing of others", async () => {
    const first = await post('hello from ann', ann);
    const second = await post('a message a moderator removes', ann);
    const bobs = await post('bob says hi', bob);
    const visitor = await post('a visitor says hi');
    await like(bobs, ann);
    await like(first, bob);
    await like(visitor, bob);
    expect((await request(h.app).delete(`/api/moderation/messages/${second}`).set('Cookie', moderator)).status).toBe(200);
    const muted = await request(h.app)
      .post('/api/moderation/chat/mutes')
      .set('Cookie', moderator)
      .send({ sender: first, minutes: 5, reason: 'calm down' });
    expect(muted.status).toBe(200);
    // A moderator's own actions are theirs: the visitor's mute names no address hash.
    expect((await request(h.app).post('/api/moderation/chat/mutes').set('Cookie', moderator).send({ sender: visitor, minutes: 1 })).status).toBe(200);

    const res = await exportOf('ann-1');
    expect(res.status).toBe(200);
    const part = ChatExportPart.parse(res.body);
    expect(part.data.messages.map((m) => [m.id, m.content, m.sender_name, m.deleted_at === null])).toEqual([
      [first, 'hello from ann', 'ann', true],
      [second, 'a message a moderator removes', 'ann', false],
    ]);
    expect(part.data.messages[0]).toMatchObject({ type: 'chat', like_count: 1, created_at: expect.stringMatching(/Z$/) });
    expect(part.data.likes).toEqual([{ message_id: bobs, created_at: expect.stringMatching(/Z$/) }]);
    expect(part.data.mute).toEqual({ muted_until: muted.body.muted_until });
    expect(part.moderation.by_you).toEqual([]);
    expect(part.moderation.about_you.map((e) => [e.action, e.target_id, e.actor, e.service])).toEqual([
      ['message.deleted', second, 'moderator', 'chat'],
      ['sender.muted', 'user:ann-1', 'moderator', 'chat'],
    ]);
    expect(part.moderation.about_you[1]!.reason).toBe('calm down');
    const text = JSON.stringify(res.body);
    // Ann's like names bob's message by id; neither its text nor bob nor the moderator shows.
    for (const other of ['bob says hi', visitor, 'bob-1', '"bob"', 'mod-1', 'ip:'])
      expect(text).not.toContain(other);

    const mod = ChatExportPart.parse((await exportOf('mod-1')).body);
    expect(mod.moderation.by_you.map((e) => [e.action, e.target_id])).toEqual([
      ['message.deleted', second],
      ['sender.muted', 'user:ann-1'],
      ['sender.muted', 'ip'],
    ]);
    expect(mod.moderation.about_you).toEqual([]);
  });

  it('answers an empty part for a user chat knows nothing about', async () => {
    const res = await exportOf('nobody-here');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { messages: [], likes: [], mute: null },
      moderation: { by_you: [], about_you: [] },
    });
  });

  it('refuses callers without the right token with 403, and an over-long id with 404', async () => {
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await exportOf('ann-1', token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    expect((await exportOf('x'.repeat(129))).status).toBe(404);
    // A session is no key to it.
    expect((await request(h.app).get(internalUserExportPath('ann-1')).set('Cookie', ann)).status).toBe(403);
  });
});
