// The kit's audit log on its own (the services test it through their routes): the one
// migration text applies split at every `;` like `prisma migrate deploy`, entries go in and
// come back newest first by target with a stable cursor, the HTTP page answers 400 for a bad
// cursor or target_id alone, and the probe reports the service role's refused changes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { z } from 'zod';
import {
  AUDIT_LOG_MIGRATION_SQL,
  AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL,
  appendAuditEntry,
  auditPageFor,
  exportModeration,
  listAuditEntries,
  listUserAuditEntries,
  parseAuditCursor,
  pseudonymiseAuditEntries,
  type AuditSql,
} from '../src/data/audit-log.js';
import { HttpError } from '../src/http/errors.js';
import { createPgPool } from '../src/data/prisma-adapter.js';
import {
  AUDIT_LOG_APPEND_ONLY,
  AUDIT_LOG_TRIGGER_REFUSALS,
  auditLogProbeFacts,
  auditLogTriggerRefusals,
  createTestDatabase,
  probeAuditLogRoles,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../src/testing/index.js';

let dir: string;
let db: TestDatabase;
let pool: pg.Pool;
/** The AuditSql a Prisma client offers, over a plain pg pool. */
let sql: AuditSql;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'audit-'));
  mkdirSync(path.join(dir, '0001_audit_log'));
  writeFileSync(path.join(dir, '0001_audit_log', 'migration.sql'), AUDIT_LOG_MIGRATION_SQL);
  mkdirSync(path.join(dir, '0002_audit_log_pseudonymise'));
  writeFileSync(
    path.join(dir, '0002_audit_log_pseudonymise', 'migration.sql'),
    AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL,
  );
  db = await createTestDatabase(dir);
  pool = createPgPool(db.target, 2);
  sql = {
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) =>
      (await pool.query(query, values)).rows as T,
  };
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const entry = (targetId: string, n: number) => ({
  actor: 'mod-1',
  action: 'thing.done',
  targetType: 'thing',
  targetId,
  reason: `round ${n}`,
  before: { n: n - 1, flag: false, gone: null },
  after: { n, flag: true, gone: null },
});

describe('audit-log.ts', () => {
  it('appends and lists newest first, by target, in cursor pages', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 5; n += 1) {
      ids.push(await appendAuditEntry(sql, entry('a', n)));
      await appendAuditEntry(sql, entry('b', n));
    }
    const first = await listAuditEntries(sql, { targetType: 'thing', targetId: 'a', limit: 3 });
    expect(first.items.map((e) => e.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(first.items[0]).toMatchObject({
      actor: 'mod-1',
      reason: 'round 5',
      before: { n: 4, flag: false, gone: null },
      after: { n: 5, flag: true, gone: null },
    });
    expect(first.items[0]!.at).toBeInstanceOf(Date);
    expect(first.nextCursor).toBe(ids[2]);
    const second = await listAuditEntries(sql, {
      targetType: 'thing',
      targetId: 'a',
      limit: 3,
      cursor: first.nextCursor!,
    });
    expect(second.items.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    expect(second.nextCursor).toBeNull();
    expect((await listAuditEntries(sql, { targetType: 'other' })).items).toEqual([]);
    expect((await listAuditEntries(sql, { limit: 500 })).items).toHaveLength(10);
    // An unknown (well-formed) cursor names no row: an empty page.
    expect((await listAuditEntries(sql, { cursor: '999999' })).items).toEqual([]);
  });

  it("listUserAuditEntries: the user's own entries and those about their targets, oldest first", async () => {
    const mine = { ...entry('u-target', 1), actor: 'user-9', action: 'app.appealed' };
    const ownId = await appendAuditEntry(sql, mine);
    const aboutId = await appendAuditEntry(sql, { ...entry('owned-1', 1), actor: 'system' });
    const otherType = await appendAuditEntry(sql, { ...entry('owned-1', 2), targetType: 'other' });
    await appendAuditEntry(sql, entry('not-theirs', 1));
    const found = await listUserAuditEntries(sql, 'user-9', { thing: ['owned-1', 'owned-2'], message: [] });
    expect(found.map((e) => e.id)).toEqual([ownId, aboutId]);
    expect(found.map((e) => e.id)).not.toContain(otherType);
    expect(await listUserAuditEntries(sql, 'nobody', {})).toEqual([]);
  });

  it('exportModeration: own entries apart, other actors as roles, targets rewritten on request', () => {
    const at = new Date('2026-11-21T10:00:00.000Z');
    const base = { at, action: 'x', targetType: 'sender', reason: '', before: null, after: { n: 1 } };
    const entries = [
      { ...base, id: '3', actor: 'mod-7', targetId: 'ip:abcdef' },
      { ...base, id: '2', actor: 'system', targetId: 'user:u1' },
      { ...base, id: '1', actor: 'u1', targetId: 'app-1' },
    ];
    const out = exportModeration('chat', 'u1', entries, (e) => e.targetId.replace(/^ip:.*/, 'ip'));
    expect(out.by_you).toEqual([
      { service: 'chat', id: '1', at: at.toISOString(), action: 'x', target_type: 'sender', target_id: 'app-1', reason: '', before: null, after: { n: 1 } },
    ]);
    expect(out.about_you.map((e) => [e.id, e.actor, e.target_id])).toEqual([
      ['3', 'moderator', 'ip'],
      ['2', 'system', 'user:u1'],
    ]);
    expect(JSON.stringify(out)).not.toContain('mod-7');
  });

  it("pseudonymiseAuditEntries replaces a user's id wherever an entry names it, and only that", async () => {
    const userId = 'userToForget0123456';
    const pseudonym = 'deleted-user-00112233aabbccdd';
    const own = await appendAuditEntry(sql, { ...entry('app-x', 1), actor: userId });
    const about = await appendAuditEntry(sql, {
      ...entry(`user:${userId}`, 1),
      actor: 'mod-2',
      after: { muted: true, by_request_of: userId },
    });
    const other = await appendAuditEntry(sql, entry('app-y', 1));
    expect(await pseudonymiseAuditEntries(sql, userId, pseudonym)).toBe(2);
    const rows = await pool.query<{ id: string; actor: string; target_id: string; after: unknown; reason: string }>(
      'SELECT id::text AS id, actor, target_id, after, reason FROM audit_log WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[own, about, other]],
    );
    expect(rows.rows).toEqual([
      { id: own, actor: pseudonym, target_id: 'app-x', after: { n: 1, flag: true, gone: null }, reason: 'round 1' },
      { id: about, actor: 'mod-2', target_id: `user:${pseudonym}`, after: { muted: true, by_request_of: pseudonym }, reason: 'round 1' },
      { id: other, actor: 'mod-1', target_id: 'app-y', after: { n: 1, flag: true, gone: null }, reason: 'round 1' },
    ]);
    // Again: nothing left to rewrite. A malformed id or pseudonym is refused.
    expect(await pseudonymiseAuditEntries(sql, userId, pseudonym)).toBe(0);
    await expect(pseudonymiseAuditEntries(sql, 'mod', pseudonym)).rejects.toMatchObject({ code: '22023' });
    await expect(pseudonymiseAuditEntries(sql, userId, 'someone-else')).rejects.toMatchObject({ code: '22023' });
    // Outside the function, even the replacement itself is refused.
    await expect(
      pool.query(`UPDATE audit_log SET actor = 'deleted-user-ffffffffffffffff' WHERE id = $1`, [other]),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('accepts only positive BIGINT cursors', () => {
    expect(parseAuditCursor('42')).toBe('42');
    expect(parseAuditCursor('9223372036854775807')).toBe('9223372036854775807');
    for (const bad of ['0', '-1', '1.5', 'abc', '', '9223372036854775808', '01'])
      expect(() => parseAuditCursor(bad)).toThrow(RangeError);
  });

  it('auditPageFor: the catalogue shape, a target marked removed, 400 for a bad cursor or target_id alone', async () => {
    const schema = z.object({
      target_type: z.enum(['thing']).optional(),
      target_id: z.string().optional(),
      cursor: z.string().optional(),
      limit: z.coerce.number().default(50),
    });
    const list = (q: Parameters<typeof listAuditEntries>[1]) => listAuditEntries(sql, q);
    const page = await auditPageFor(
      schema,
      { target_type: 'thing', target_id: 'b', limit: '2' },
      list,
    );
    expect(page.entries).toHaveLength(2);
    expect(page.entries[0]).toMatchObject({
      target_type: 'thing',
      target_id: 'b',
      at: expect.stringMatching(/Z$/),
    });
    expect(page.next_cursor).toBe(page.entries[1]!.id);
    // A service's mark of a target gone passes through; an entry without it has no such key.
    expect(Object.keys(page.entries[0]!)).not.toContain('target_removed');
    const marked = await auditPageFor(schema, { target_type: 'thing', target_id: 'b' }, async (q) => {
      const listed = await list(q);
      return { ...listed, items: listed.items.map((e) => ({ ...e, targetRemoved: 'retention' as const })) };
    });
    expect(marked.entries[0]).toMatchObject({ target_id: 'b', target_removed: 'retention' });
    for (const query of [{ cursor: 'nope' }, { target_id: 'b' }]) {
      const refused = auditPageFor(schema, query, list);
      await expect(refused).rejects.toBeInstanceOf(HttpError);
      await expect(refused).rejects.toMatchObject({ status: 400 });
    }
  });

  it('the table refuses UPDATE, DELETE and TRUNCATE; the service role lacks the privileges', async () => {
    for (const op of [
      'UPDATE audit_log SET reason = $1',
      'DELETE FROM audit_log',
      'TRUNCATE audit_log',
    ])
      await expect(pool.query(op, op.includes('$1') ? ['x'] : [])).rejects.toMatchObject({
        code: '42501',
      });
    const probe = await probeAuditLogRoles(dir, TEST_DATABASE_URL);
    expect(auditLogProbeFacts(probe)).toEqual(AUDIT_LOG_APPEND_ONLY);
  });

  it('auditLogProbeFacts tells an append-only table from one a role may change', () => {
    const all = { SELECT: true, INSERT: true, UPDATE: true, DELETE: true, TRUNCATE: true };
    const changeable = auditLogProbeFacts({
      privileges: { owner: all, service: all },
      appended: true,
      changes: {
        UPDATE: null,
        DELETE: { code: 'P0001', message: 'audit_log is append-only: DELETE is not allowed' },
        TRUNCATE: { code: '42501', message: 'permission denied for table audit_log' },
      },
      pseudonymised: { code: '42501', message: 'permission denied for table audit_log' },
    });
    expect(changeable.changes).toEqual({
      UPDATE: 'allowed',
      DELETE: 'P0001: audit_log is append-only: DELETE is not allowed',
      TRUNCATE: 'permission denied',
    });
    expect(changeable).not.toEqual(AUDIT_LOG_APPEND_ONLY);
  });

  it('auditLogTriggerRefusals tells a statement that went through from the trigger refusing it', async () => {
    const refusals = await auditLogTriggerRefusals(async (sql) => {
      if (sql.startsWith('DELETE'))
        throw new Error(
          'Raw query failed. Message: `audit_log is append-only: DELETE is not allowed`',
        );
      if (sql.startsWith('TRUNCATE')) throw new Error('permission denied for table audit_log');
    });
    expect(refusals).toEqual({
      UPDATE: 'allowed',
      DELETE: AUDIT_LOG_TRIGGER_REFUSALS.DELETE,
      TRUNCATE: 'permission denied for table audit_log',
    });
    expect(refusals).not.toEqual(AUDIT_LOG_TRIGGER_REFUSALS);
  });
});
