// The chat's audit log (docs/decisions/024-audit-log-per-service.md) against real PostgreSQL and Redis: every
// deletion and mute appends one entry in the transaction of the action (moderator, action,
// target, reason, state before and after); a mute's entry names the sender by user id or
// keyed IP hash, never the address; refused actions append nothing; moderators page by
// cursor and filter by target; 401/403/400. The table is append-only in the database.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  AUDIT_LOG_MIGRATION_SQL,
  AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL,
  hashIp,
} from '@svc/service-kit';
import {
  AUDIT_LOG_APPEND_ONLY,
  AUDIT_LOG_TRIGGER_REFUSALS,
  auditLogProbeFacts,
  auditLogTriggerRefusals,
  probeAuditLogRoles,
  TEST_DATABASE_URL,
} from '@svc/service-kit/testing';
import { AuditPageResponse, MODERATORS_ONLY, type AuditEntryView } from '@svc/types';
import { messageDeletedEntry, senderMutedEntry } from '../src/domain/moderation-audit.js';
import { migrationsDir, startHarness, type Harness } from './harness.js';

let h: Harness;
let moderator: string;
let member: string;
beforeAll(async () => {
  h = await startHarness();
  moderator = h.sessionCookie({ id: 'mod-audit', username: 'mod', isModerator: true });
  member = h.sessionCookie({ id: 'member-audit', username: 'member' });
});
afterAll(async () => {
  await h.close();
});

let nextIp = 1;
const freshIp = () => `10.88.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

async function post(content: string, ip = freshIp(), cookie?: string): Promise<string> {
  const r = request(h.app).post('/api/messages').set('X-Forwarded-For', ip);
  if (cookie) r.set('Cookie', cookie);
  const res = await r.send({ content });
  expect(res.status).toBe(201);
  return res.body.message.id as string;
}
const del = (id: string, cookie = moderator) =>
  request(h.app).delete(`/api/moderation/messages/${id}`).set('Cookie', cookie);
const mute = (body: object, cookie = moderator) =>
  request(h.app).post('/api/moderation/chat/mutes').set('Cookie', cookie).send(body);
const audit = (query: Record<string, string | number>, cookie: string | null = moderator) => {
  const r = request(h.app).get('/api/moderation/chat/audit').query(query);
  return cookie ? r.set('Cookie', cookie) : r;
};
const muteKeysFor = (ip: string) =>
  h.redis.keys(`${h.redisPrefix}chat:mute:ip:${hashIp('test-ip-secret', ip)}`);
async function entriesOf(targetType: string, targetId: string): Promise<AuditEntryView[]> {
  const res = await audit({ target_type: targetType, target_id: targetId, limit: 100 });
  expect(res.status).toBe(200);
  return AuditPageResponse.parse(res.body).entries;
}

describe('audit entries (pure)', () => {
  it('message.deleted and sender.muted carry the state before and after', () => {
    const at = new Date('2026-11-23T05:00:00.000Z');
    expect(messageDeletedEntry({ actor: 'm', messageId: 'msg1', deletedAt: at })).toEqual({
      actor: 'm',
      action: 'message.deleted',
      targetType: 'message',
      targetId: 'msg1',
      reason: '',
      before: { deleted: false },
      after: { deleted: true, deleted_at: '2026-11-23T05:00:00.000Z' },
    });
    expect(
      senderMutedEntry({
        actor: 'm',
        sender: { kind: 'visitor', ipHash: 'abc' },
        messageId: 'msg1',
        reason: 'flood',
        minutes: 10,
        previousUntil: null,
        until: at,
      }),
    ).toEqual({
      actor: 'm',
      action: 'sender.muted',
      targetType: 'sender',
      targetId: 'ip:abc',
      reason: 'flood',
      before: { muted_until: null },
      after: {
        muted_until: '2026-11-23T05:00:00.000Z',
        minutes: 10,
        message_id: 'msg1',
        sender_kind: 'visitor',
      },
    });
  });
});

describe('the chat audit log', () => {
  it('a deletion appends message.deleted by the moderator; a second delete appends nothing', async () => {
    const id = await post('abusive words');
    expect((await del(id)).status).toBe(200);
    expect((await del(id)).status).toBe(404);
    expect((await del(id, member)).status).toBe(403);
    const entries = await entriesOf('message', id);
    expect(entries).toHaveLength(1);
    const row = await h.db.message.findUniqueOrThrow({ where: { id } });
    expect(entries[0]).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      at: expect.stringMatching(/Z$/),
      actor: 'mod-audit',
      action: 'message.deleted',
      target_type: 'message',
      target_id: id,
      reason: '',
      before: { deleted: false },
      after: { deleted: true, deleted_at: row.deletedAt!.toISOString() },
    });
  });

  it('two deletes at once: one 200 and one entry, the other 404', async () => {
    const id = await post('twice');
    const other = h.sessionCookie({ id: 'mod-audit-2', username: 'mod2', isModerator: true });
    const answers = await Promise.all([del(id), del(id, other)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404]);
    const entries = await entriesOf('message', id);
    expect(entries).toHaveLength(1);
    const winner = answers[0]!.status === 200 ? 'mod-audit' : 'mod-audit-2';
    expect(entries[0]!.actor).toBe(winner);
  });

  it("a visitor's mute is audited by the keyed IP hash, never the address; a re-mute keeps the previous end", async () => {
    const ip = '203.0.113.77';
    const id = await post('flood', ip);
    const first = await mute({ sender: id, minutes: 5, reason: '  flooding  ' });
    expect(first.status).toBe(200);
    const second = await mute({ sender: id, minutes: 60 });
    expect(second.status).toBe(200);
    const target = `ip:${hashIp('test-ip-secret', ip)}`;
    const entries = await entriesOf('sender', target);
    expect(entries.map((e) => [e.action, e.reason])).toEqual([
      ['sender.muted', ''],
      ['sender.muted', 'flooding'],
    ]);
    expect(entries[1]).toMatchObject({
      actor: 'mod-audit',
      before: { muted_until: null },
      after: {
        muted_until: first.body.muted_until,
        minutes: 5,
        message_id: id,
        sender_kind: 'visitor',
      },
    });
    expect(entries[0]).toMatchObject({
      before: { muted_until: first.body.muted_until },
      after: { muted_until: second.body.muted_until, minutes: 60 },
    });
    // Nowhere in the log is the raw address.
    const raw = await h.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM audit_log WHERE (audit_log.*)::text LIKE $1`,
      `%${ip}%`,
    );
    expect(raw[0]!.n).toBe(0);
  });

  it("a logged-in sender's mute is audited by user id", async () => {
    const author = h.sessionCookie({ id: 'author-audit', username: 'author' });
    const id = await post('rude', freshIp(), author);
    expect((await mute({ sender: id, minutes: 10 })).status).toBe(200);
    const [entry] = await entriesOf('sender', 'user:author-audit');
    expect(entry).toMatchObject({ action: 'sender.muted', after: { sender_kind: 'user' } });
  });

  it('a refused mute appends nothing (unknown message 404, non-moderator 403, bad body 400)', async () => {
    const id = await post('fine', '198.51.100.9');
    expect((await mute({ sender: id, minutes: 5 }, member)).status).toBe(403);
    expect((await mute({ sender: id, minutes: 0 })).status).toBe(400);
    expect((await mute({ sender: id, minutes: 5, reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await mute({ sender: 'no-such-message', minutes: 5 })).status).toBe(404);
    expect(await entriesOf('sender', `ip:${hashIp('test-ip-secret', '198.51.100.9')}`)).toEqual([]);
  });

  it('a mute whose Redis write fails appends no entry (one transaction)', async () => {
    const ip = '198.51.100.10';
    const id = await post('later', ip);
    // Redis refuses the write (as a read-only replica after a failover would): the one
    // fault injected on the third-party client, for this call only.
    const realSet = h.redis.set;
    Object.assign(h.redis, {
      set: () => Promise.reject(new Error("READONLY You can't write against a read only replica.")),
    });
    let res: request.Response;
    try {
      res = await mute({ sender: id, minutes: 5 });
    } finally {
      Object.assign(h.redis, { set: realSet });
    }
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(await entriesOf('sender', `ip:${hashIp('test-ip-secret', ip)}`)).toEqual([]);
    expect(await muteKeysFor(ip)).toEqual([]);
    expect((await mute({ sender: id, minutes: 5 })).status).toBe(200);
    expect(await entriesOf('sender', `ip:${hashIp('test-ip-secret', ip)}`)).toHaveLength(1);
  });

  it('pages newest first by cursor and filters by target type and id', async () => {
    const ids = [await post('a1'), await post('a2'), await post('a3')];
    for (const id of ids) expect((await del(id)).status).toBe(200);
    const messages = AuditPageResponse.parse(
      (await audit({ target_type: 'message', limit: 2 })).body,
    );
    expect(messages.entries.map((e) => e.target_id)).toEqual([ids[2], ids[1]]);
    expect(messages.next_cursor).toBe(messages.entries[1]!.id);
    const next = AuditPageResponse.parse(
      (await audit({ target_type: 'message', limit: 2, cursor: messages.next_cursor! })).body,
    );
    expect(next.entries[0]!.target_id).toBe(ids[0]);
    expect(next.entries.every((e) => e.action === 'message.deleted')).toBe(true);
    const senders = AuditPageResponse.parse((await audit({ target_type: 'sender' })).body);
    expect(senders.entries.length).toBeGreaterThan(0);
    expect(senders.entries.every((e) => e.target_type === 'sender')).toBe(true);
  });

  it('400 for a bad cursor or filter, 401 without a session, 403 for non-moderators', async () => {
    const bad: Array<Record<string, string | number>> = [
      { cursor: 'abc' },
      { cursor: '-1' },
      { target_id: 'x' },
      { target_type: 'site' },
      { limit: 1000 },
    ];
    for (const query of bad) {
      const res = await audit(query);
      expect([res.status, typeof res.body.error]).toEqual([400, 'string']);
    }
    const anon = await audit({}, null);
    expect([anon.status, anon.body]).toEqual([401, { error: 'Authentication required' }]);
    const other = await audit({}, member);
    expect([other.status, other.body]).toEqual([403, { error: MODERATORS_ONLY }]);
  });
});

describe('audit_log is append-only in the chat database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE with the trigger error, whatever the role', async () => {
    expect((await del(await post('gone'))).status).toBe(200);
    expect(await auditLogTriggerRefusals((sql) => h.db.$executeRawUnsafe(sql))).toEqual(
      AUDIT_LOG_TRIGGER_REFUSALS,
    );
    await expect(h.db.auditLog.updateMany({ data: { reason: 'x' } })).rejects.toThrow(
      'append-only',
    );
  });

  it("the service's role may append but not UPDATE, DELETE or TRUNCATE (privileges revoked)", async () => {
    const probe = await probeAuditLogRoles(migrationsDir, TEST_DATABASE_URL);
    expect(auditLogProbeFacts(probe)).toEqual(AUDIT_LOG_APPEND_ONLY);
  });

  it("is created by the kit's one migration text (app-store's)", () => {
    const sql = readFileSync(`${migrationsDir}/20261123061000_audit_log/migration.sql`, 'utf8');
    expect(sql).toBe(AUDIT_LOG_MIGRATION_SQL);
  });

  it("lets account deletion pseudonymise through the kit's migration text", () => {
    const sql = readFileSync(
      `${migrationsDir}/20261129000000_audit_log_pseudonymise/migration.sql`,
      'utf8',
    );
    expect(sql).toBe(AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL);
  });
});
