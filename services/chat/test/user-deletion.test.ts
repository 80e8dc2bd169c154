// DELETE /internal/users/{id} (auth's account deletion job → chat) against real PostgreSQL and
// Redis: afterwards no column of chat's schema holds the user's id, username or e-mail; their
// messages stay, as written, under DELETED_USER_NAME with no location or address hash; their
// likes go with the counters; audit entries name the pseudonym; their mute is lifted. The call
// is idempotent, a stranger is a 204, and the token and the pseudonym are checked. A deleted
// user's message is listed, liked and moderated like any other, but has nobody to mute.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  ChatExportPart,
  ChatMessageListResponse,
  DELETED_USER_NAME,
  internalUserExportPath,
  internalUserPath,
} from '@svc/types';
import { INTERNAL_TOKEN, startHarness, type Harness } from './harness.js';

const ANN = { id: 'annDeletes0000000001', username: 'annzorro' };
const ANN_EMAIL = `${ANN.username}@example.com`; // the harness's session e-mail
const PSEUDONYM = 'deleted-user-0a1b2c3d4e5f6789';
const ANN_IP = '27.0.0.3'; // Tokyo in geoip-lite's data: the message gets a location

let h: Harness;
let ann: string;
let annAsModerator: string;
let bob: string;
let moderator: string;
beforeAll(async () => {
  h = await startHarness();
  ann = h.sessionCookie(ANN);
  annAsModerator = h.sessionCookie({ ...ANN, isModerator: true });
  bob = h.sessionCookie({ id: 'bobStays000000000001', username: 'bobstays' });
  moderator = h.sessionCookie({
    id: 'modStays000000000001',
    username: 'modstays',
    isModerator: true,
  });
});
afterAll(async () => {
  await h.close();
});

let nextIp = 1;
const post = async (content: string, cookie?: string, ip = `10.66.0.${nextIp++}`) => {
  const r = request(h.app).post('/api/messages').set('X-Forwarded-For', ip);
  const res = await (cookie ? r.set('Cookie', cookie) : r).send({ content });
  expect(res.status).toBe(201);
  return res.body.message.id as string;
};
const like = (id: string, cookie?: string) => {
  const r = request(h.app)
    .post(`/api/messages/${id}/like`)
    .set('X-Forwarded-For', `10.66.1.${nextIp++}`);
  return cookie ? r.set('Cookie', cookie) : r;
};
const mute = (sender: string, cookie = moderator) =>
  request(h.app)
    .post('/api/moderation/chat/mutes')
    .set('Cookie', cookie)
    .send({ sender, minutes: 5 });
const deleteUser = (
  userId: string,
  body: unknown = { pseudonym: PSEUDONYM },
  token: string | null = INTERNAL_TOKEN,
) => {
  const r = request(h.app).delete(internalUserPath(userId));
  return (token === null ? r : r.set('X-Internal-Token', token)).send(body as object);
};
const muteKey = (userId: string) => `${h.redisPrefix}chat:mute:user:${userId}`;

/** `table.column` of every column of chat's schema whose text holds `needle`. */
async function columnsHolding(needle: string): Promise<string[]> {
  const columns = await h.db.$queryRaw<Array<{ table_name: string; column_name: string }>>`
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = ${h.database.target.schema} AND t.table_type = 'BASE TABLE'`;
  const hits: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const [row] = await h.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text LIKE '%' || $1 || '%'`,
      needle,
    );
    if (row!.n > 0) hits.push(`${table}.${column}`);
  }
  return hits.sort();
}

const listed = async () =>
  ChatMessageListResponse.parse((await request(h.app).get('/api/messages?limit=100')).body)
    .messages;

describe('DELETE /internal/users/{id}', () => {
  let annFirst: string;
  let annRemoved: string;
  let bobs: string;
  let visitors: string;

  it("leaves nothing naming the user, keeps their messages as a deleted user's, lifts their mute", async () => {
    annFirst = await post('hello from ann', ann, ANN_IP);
    annRemoved = await post('ann says something removed', ann);
    bobs = await post('bob says hi', bob);
    visitors = await post('a visitor says hi');
    for (const id of [bobs, visitors, annFirst]) expect((await like(id, ann)).status).toBe(200);
    expect((await like(annFirst, bob)).status).toBe(200);
    expect(
      (
        await request(h.app)
          .delete(`/api/moderation/messages/${annRemoved}`)
          .set('Cookie', moderator)
      ).status,
    ).toBe(200);
    expect((await mute(annFirst)).status).toBe(200);
    expect((await mute(bobs)).status).toBe(200);
    // Ann moderated too: her own actions name her as the actor.
    expect((await mute(visitors, annAsModerator)).status).toBe(200);
    const auditBefore = await h.db.auditLog.count();

    // The scan sees her before: it is able to fail.
    expect(await columnsHolding(ANN.id)).toEqual([
      'audit_log.actor',
      'audit_log.target_id',
      'message_likes.liker_key',
      'messages.sender_user_id',
    ]);
    expect(await columnsHolding(ANN.username)).toEqual(['messages.sender_name']);

    const res = await deleteUser(ANN.id);
    expect([res.status, res.text]).toEqual([204, '']);

    for (const needle of [ANN.id, ANN.username, ANN_EMAIL])
      expect(await columnsHolding(needle)).toEqual([]);

    // Her messages stay as written (the deleted one too, still unlisted), pointing at nobody.
    const rows = await h.db.message.findMany({
      where: { id: { in: [annFirst, annRemoved] } },
      orderBy: { createdAt: 'asc' },
    });
    expect(
      rows.map((m) => [
        m.id,
        m.content,
        m.senderName,
        m.senderUserId,
        m.senderLocation,
        m.senderIpHash,
        m.deletedAt === null,
      ]),
    ).toEqual([
      [annFirst, 'hello from ann', DELETED_USER_NAME, null, null, null, true],
      [annRemoved, 'ann says something removed', DELETED_USER_NAME, null, null, null, false],
    ]);
    const shown = (await listed()).find((m) => m.id === annFirst);
    expect(shown).toMatchObject({
      content: 'hello from ann',
      sender_name: DELETED_USER_NAME,
      sender_location: null,
    });

    // Her likes are gone and every counter agrees with its rows; bob's like of hers stays.
    expect(
      await h.db.messageLike.findMany({
        where: { messageId: annFirst },
        select: { likerKey: true },
      }),
    ).toEqual([{ likerKey: 'user:bobStays000000000001' }]);
    for (const m of await h.db.message.findMany({
      include: { _count: { select: { likes: true } } },
    }))
      expect([m.id, m.likeCount]).toEqual([m.id, m._count.likes]);
    expect((await h.db.message.findUniqueOrThrow({ where: { id: bobs } })).likeCount).toBe(0);

    // The audit log keeps every entry, with the pseudonym where she was named.
    expect(await h.db.auditLog.count()).toBe(auditBefore);
    const entries = await h.db.auditLog.findMany({ orderBy: { id: 'asc' } });
    expect(entries.map((e) => [e.action, e.actor, e.targetId])).toEqual([
      ['message.deleted', 'modStays000000000001', annRemoved],
      ['sender.muted', 'modStays000000000001', `user:${PSEUDONYM}`],
      ['sender.muted', 'modStays000000000001', 'user:bobStays000000000001'],
      ['sender.muted', PSEUDONYM, expect.stringMatching(/^ip:/)],
    ]);

    // Her mute is lifted; bob's stays.
    expect(await h.redis.exists(muteKey(ANN.id))).toBe(0);
    expect(await h.redis.exists(muteKey('bobStays000000000001'))).toBe(1);

    // Her data export is now empty.
    const exported = await request(h.app)
      .get(internalUserExportPath(ANN.id))
      .set('X-Internal-Token', INTERNAL_TOKEN);
    expect(ChatExportPart.parse(exported.body)).toEqual({
      data: { messages: [], likes: [], mute: null },
      moderation: { by_you: [], about_you: [] },
    });
  });

  it('is idempotent: a second call is a 204 that changes nothing', async () => {
    const snapshot = async () => ({
      messages: await h.db.message.findMany({ orderBy: { id: 'asc' } }),
      likes: await h.db.messageLike.findMany({
        orderBy: [{ messageId: 'asc' }, { likerKey: 'asc' }],
      }),
      audit: await h.db.auditLog.findMany({ orderBy: { id: 'asc' } }),
    });
    const before = await snapshot();
    expect((await deleteUser(ANN.id)).status).toBe(204);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 204 for a user chat never knew, and changes nothing', async () => {
    const count = await h.db.message.count();
    expect((await deleteUser('neverSeenUser0000001')).status).toBe(204);
    expect(await h.db.message.count()).toBe(count);
  });

  it('refuses callers without the right token (403), a bad pseudonym (400), an over-long id (404)', async () => {
    const bobsName = async () =>
      (await h.db.message.findUniqueOrThrow({ where: { id: bobs } })).senderName;
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await deleteUser('bobStays000000000001', undefined, token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    // A session is no key to it.
    const withSession = await request(h.app)
      .delete(internalUserPath('bobStays000000000001'))
      .set('Cookie', bob)
      .send({ pseudonym: PSEUDONYM });
    expect(withSession.status).toBe(403);
    for (const body of [
      {},
      { pseudonym: 'deleted-user-XYZ' },
      { pseudonym: 'bob' },
      { pseudonym: `${PSEUDONYM}0` },
    ])
      expect((await deleteUser('bobStays000000000001', body)).status).toBe(400);
    expect((await deleteUser('x'.repeat(129))).status).toBe(404);
    expect(await bobsName()).toBe('bobstays');
  });
});

describe("a deleted user's message", () => {
  it('is liked and deleted by moderators as any message; the like event names the deleted user', async () => {
    const id = await post(
      'I leave soon',
      h.sessionCookie({ id: 'leaverLikes000000001', username: 'leaverlikes' }),
    );
    expect((await deleteUser('leaverLikes000000001')).status).toBe(204);
    const liked = await like(id);
    expect([liked.status, liked.body]).toEqual([200, { liked: true, like_count: 1 }]);
    const [event] = await h.waitForEvents((e) => e.event === 'like' && e.payload.messageId === id);
    expect(event!.payload.toUser).toBe(DELETED_USER_NAME);
    expect(
      (await request(h.app).delete(`/api/moderation/messages/${id}`).set('Cookie', moderator))
        .status,
    ).toBe(200);
  });

  it('has nobody to mute: 404 with its own error, no entry, no key', async () => {
    const id = await post(
      'muted too late',
      h.sessionCookie({ id: 'leaverMutes000000001', username: 'leavermutes' }),
    );
    expect((await deleteUser('leaverMutes000000001')).status).toBe(204);
    const audit = await h.db.auditLog.count();
    const res = await mute(id);
    expect([res.status, res.body]).toEqual([404, { error: 'This message has no sender to mute' }]);
    expect(await h.db.auditLog.count()).toBe(audit);
    expect(await h.redis.keys(`${h.redisPrefix}chat:mute:user:leaverMutes*`)).toEqual([]);
  });

  it('a mute racing the deletion waits for it, then finds nobody to mute', async () => {
    const userId = 'leaverRaces000000001';
    const id = await post('racing', h.sessionCookie({ id: userId, username: 'leaverraces' }));
    const audit = await h.db.auditLog.count();
    // A transaction rewriting the sender as the deletion does holds the row while a mute,
    // which read the sender before, tries to write its entry.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let rewritten!: () => void;
    const rowHeld = new Promise<void>((r) => (rewritten = r));
    const deletion = h.db.$transaction(async (tx) => {
      await tx.message.updateMany({
        where: { senderUserId: userId },
        data: {
          senderUserId: null,
          senderName: DELETED_USER_NAME,
          senderLocation: null,
          senderIpHash: null,
        },
      });
      rewritten();
      await held;
    });
    await rowHeld;
    const muting = mute(id).then((r) => r);
    // Wait until the mute is blocked on the row, then let the deletion commit.
    for (let waited = 0; ; waited += 20) {
      const [row] = await h.db.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE '%sender_ip_hash%FOR SHARE%'`;
      if (row!.n > 0) break;
      if (waited > 5000) throw new Error('the mute never waited for the row');
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    await deletion;
    const res = await muting;
    expect([res.status, res.body]).toEqual([404, { error: 'This message has no sender to mute' }]);
    expect(await h.db.auditLog.count()).toBe(audit);
    expect(await h.redis.exists(muteKey(userId))).toBe(0);
  });
});
