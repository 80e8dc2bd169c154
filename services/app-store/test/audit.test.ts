// The append-only audit log: the entry builders, the database refusing UPDATE, DELETE and
// TRUNCATE (triggers for every role, revoked privileges for the service's own role and for
// roles granted by default privileges), and listing newest first, by target, paginated.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AUDIT_LOG_MIGRATION_SQL,
  AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL,
  createPgAdapter,
} from '@svc/service-kit';
import {
  AUDIT_LOG_APPEND_ONLY,
  AUDIT_LOG_TRIGGER_REFUSALS,
  auditLogProbeFacts,
  auditLogTriggerRefusals,
  createTestDatabase,
  probeAuditLogRoles,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';
import {
  automaticBlockEntry,
  summariseReportReasons,
  type AuditEntryInput,
} from '../src/domain/audit-entry.js';
import { appendAudit, listAudit } from '../src/store/audit-store.js';
import { migrationsDir } from './harness.js';

describe('audit entries (pure)', () => {
  it('summarises report reasons as counts, most frequent first, ties in the documented order', () => {
    expect(summariseReportReasons({ other: 1, spam: 3, malware: 1 })).toBe(
      '5 reports: 3 spam, 1 malware, 1 other',
    );
    expect(summariseReportReasons({ phishing: 2, spam: 2, illegal: 0 })).toBe(
      '4 reports: 2 spam, 2 phishing',
    );
    expect(summariseReportReasons({ inappropriate: 1 })).toBe('1 report: 1 inappropriate');
    expect(summariseReportReasons({})).toBe('0 reports');
  });

  it('builds the automatic block entry: system, app.blocked, approved → blocked', () => {
    expect(automaticBlockEntry('app_1', { spam: 4, other: 1 })).toEqual({
      actor: 'system',
      action: 'app.blocked',
      targetType: 'app',
      targetId: 'app_1',
      reason: '5 reports: 4 spam, 1 other',
      before: { status: 'approved' },
      after: { status: 'blocked' },
    });
  });
});

let testDb: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  testDb = await createTestDatabase(migrationsDir);
  db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 4 }) });
});

afterAll(async () => {
  await db?.$disconnect();
  await testDb?.drop();
});

const entry = (targetId: string, action: AuditEntryInput['action'] = 'app.blocked') => ({
  ...automaticBlockEntry(targetId, { spam: 5 }),
  action,
});

describe('audit_log is append-only in the database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE with the trigger error, whatever the role', async () => {
    await db.$transaction((tx) => appendAudit(tx, entry('app_trig')));
    expect(await auditLogTriggerRefusals((sql) => db.$executeRawUnsafe(sql))).toEqual(
      AUDIT_LOG_TRIGGER_REFUSALS,
    );
    // Through the generated client too.
    await expect(db.auditLog.updateMany({ data: { reason: 'x' } })).rejects.toThrow(
      'audit_log is append-only: UPDATE is not allowed',
    );
    await expect(db.auditLog.deleteMany({})).rejects.toThrow(
      'audit_log is append-only: DELETE is not allowed',
    );
    const rows = await db.auditLog.findMany({ where: { targetId: 'app_trig' } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: '5 reports: 5 spam' });
  });

  it('takes UPDATE, DELETE and TRUNCATE away from the migrating role and from roles granted them by default', async () => {
    // The kit's probe: a non-superuser owner applies the migrations (as a service with its
    // own role would), with default privileges that would give a second role every
    // privilege on new tables; that service role may append but not change.
    const probe = await probeAuditLogRoles(migrationsDir, TEST_DATABASE_URL);
    expect(auditLogProbeFacts(probe)).toEqual(AUDIT_LOG_APPEND_ONLY);
  });

  it("is created by the kit's one migration text (the same in sites and chat)", () => {
    const sql = readFileSync(`${migrationsDir}/20261123040000_audit_log/migration.sql`, 'utf8');
    expect(sql).toBe(AUDIT_LOG_MIGRATION_SQL);
  });

  it("lets account deletion pseudonymise through the kit's one migration text", () => {
    const sql = readFileSync(
      `${migrationsDir}/20261129000000_audit_log_pseudonymise/migration.sql`,
      'utf8',
    );
    expect(sql).toBe(AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL);
  });
});

describe('listAudit', () => {
  it('lists newest first, filtered by target, in pages with a cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(await db.$transaction((tx) => appendAudit(tx, entry('app_list_a'))));
      await db.$transaction((tx) => appendAudit(tx, entry('app_list_b', 'app.restored')));
    }
    const newestFirst = [...ids].reverse();

    const all = await listAudit(db, { targetType: 'app', targetId: 'app_list_a', limit: 100 });
    expect(all.items.map((e) => e.id)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    expect(all.items[0]).toMatchObject({
      actor: 'system',
      action: 'app.blocked',
      targetType: 'app',
      targetId: 'app_list_a',
      before: { status: 'approved' },
      after: { status: 'blocked' },
    });
    expect(all.items[0]?.at).toBeInstanceOf(Date);

    const first = await listAudit(db, { targetType: 'app', targetId: 'app_list_a', limit: 2 });
    expect(first.items.map((e) => e.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.nextCursor).toBe(newestFirst[1]);
    // An entry appended meanwhile does not shift the older pages.
    await db.$transaction((tx) => appendAudit(tx, entry('app_list_a')));
    const second = await listAudit(db, {
      targetType: 'app',
      targetId: 'app_list_a',
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second.items.map((e) => e.id)).toEqual(newestFirst.slice(2, 4));
    const third = await listAudit(db, {
      targetType: 'app',
      targetId: 'app_list_a',
      limit: 2,
      cursor: second.nextCursor!,
    });
    expect(third.items.map((e) => e.id)).toEqual(newestFirst.slice(4));
    expect(third.nextCursor).toBeNull();

    const other = await listAudit(db, { targetType: 'app', targetId: 'app_list_b' });
    expect(other.items).toHaveLength(5);
    expect(other.items.every((e) => e.action === 'app.restored')).toBe(true);

    // Unfiltered: every target, newest first.
    const everything = await listAudit(db, { limit: 3 });
    expect(everything.items[0]?.targetId).toBe('app_list_a');
    expect(everything.items.map((e) => Number(e.id))).toEqual(
      [...everything.items.map((e) => Number(e.id))].sort((a, b) => b - a),
    );
  });

  it('bounds the page size and rejects a malformed cursor', async () => {
    await expect(listAudit(db, { cursor: 'abc' })).rejects.toThrow(RangeError);
    const page = await listAudit(db, { limit: 0 });
    expect(page.items).toHaveLength(1);
  });
});
