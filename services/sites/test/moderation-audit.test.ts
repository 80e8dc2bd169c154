// The sites' audit log (docs/decisions/024-audit-log-per-service.md) on the real app, PostgreSQL and Redis: every
// hide and restore appends one entry in its own transaction (moderator, action, site, reason,
// visibility before and after); a refused action appends none; moderators page through it by
// cursor and filter by site; 401/403/400 as the catalogue says. The table is append-only in
// the database: the service's role cannot UPDATE, DELETE or TRUNCATE it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AUDIT_LOG_MIGRATION_SQL, AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL } from '@svc/service-kit';
import {
  AUDIT_LOG_APPEND_ONLY,
  AUDIT_LOG_TRIGGER_REFUSALS,
  auditLogProbeFacts,
  auditLogTriggerRefusals,
  probeAuditLogRoles,
  TEST_DATABASE_URL,
} from '@svc/service-kit/testing';
import { AuditPageResponse, MODERATORS_ONLY, type AuditEntryView, type Site } from '@svc/types';
import { buildApp } from '../src/app.js';
import { siteHiddenEntry, siteRestoredEntry } from '../src/domain/moderation-audit.js';
import { nextIp, startHarness, type Harness } from './api-harness.js';

const migrations = new URL('../prisma/migrations', import.meta.url).pathname;

let h: Harness;
let app: ReturnType<typeof buildApp>;
let n = 0;
let moderator: string;
let otherModerator: string;
let user: string;

beforeAll(async () => {
  h = await startHarness();
  app = buildApp(h.deps);
  moderator = h.sessionCookie({ id: 'mod-audit-1', isModerator: true });
  otherModerator = h.sessionCookie({ id: 'mod-audit-2', isModerator: true });
  user = h.sessionCookie({ id: 'user-audit-1' });
});
afterAll(async () => {
  await h?.close();
});

async function newSite(): Promise<Site> {
  const res = await request(app)
    .post('/api/sites')
    .set('X-Forwarded-For', nextIp())
    .send({ url: `${h.website.origin}/audit-${n++}` });
  expect(res.status).toBe(201);
  return res.body.site as Site;
}

const hide = (id: string, cookie: string, reason = 'spam') =>
  request(app).post(`/api/moderation/sites/${id}/hide`).set('Cookie', cookie).send({ reason });
const restore = (id: string, cookie: string) =>
  request(app).post(`/api/moderation/sites/${id}/restore`).set('Cookie', cookie);
const audit = (query: Record<string, string | number>, cookie: string | null = moderator) => {
  const r = request(app).get('/api/moderation/sites/audit').query(query);
  return cookie ? r.set('Cookie', cookie) : r;
};
async function entriesOf(siteId: string): Promise<AuditEntryView[]> {
  const res = await audit({ target_type: 'site', target_id: siteId, limit: 100 });
  expect(res.status).toBe(200);
  return AuditPageResponse.parse(res.body).entries;
}

describe('audit entries (pure)', () => {
  it('site.hidden and site.restored carry the visibility before and after', () => {
    const at = new Date('2026-11-23T05:00:00.000Z');
    expect(siteHiddenEntry({ actor: 'u1', siteId: 's1', reason: 'spam', hiddenAt: at })).toEqual({
      actor: 'u1',
      action: 'site.hidden',
      targetType: 'site',
      targetId: 's1',
      reason: 'spam',
      before: { hidden: false },
      after: { hidden: true, hidden_at: '2026-11-23T05:00:00.000Z', hidden_reason: 'spam' },
    });
    expect(
      siteRestoredEntry({ actor: 'u2', siteId: 's1', wasHiddenAt: at, wasHiddenReason: 'spam' }),
    ).toEqual({
      actor: 'u2',
      action: 'site.restored',
      targetType: 'site',
      targetId: 's1',
      reason: '',
      before: { hidden: true, hidden_at: '2026-11-23T05:00:00.000Z', hidden_reason: 'spam' },
      after: { hidden: false },
    });
  });
});

describe('the sites audit log', () => {
  it('hide and restore each append one entry: moderator, action, reason, state before and after', async () => {
    const site = await newSite();
    const hidden = await hide(site.id, moderator, '  phishing page  ');
    expect(hidden.status).toBe(200);
    expect((await restore(site.id, otherModerator)).status).toBe(200);

    const entries = await entriesOf(site.id);
    expect(entries).toHaveLength(2);
    const [restored, hid] = entries; // newest first
    expect(hid).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      at: expect.stringMatching(/Z$/),
      actor: 'mod-audit-1',
      action: 'site.hidden',
      target_type: 'site',
      target_id: site.id,
      reason: 'phishing page',
      before: { hidden: false },
      after: { hidden: true, hidden_at: hidden.body.hidden_at, hidden_reason: 'phishing page' },
    });
    expect(restored).toMatchObject({
      actor: 'mod-audit-2',
      action: 'site.restored',
      target_id: site.id,
      reason: '',
      before: { hidden: true, hidden_at: hidden.body.hidden_at, hidden_reason: 'phishing page' },
      after: { hidden: false },
    });
  });

  it('a refused hide or restore (409, 404, 403) appends nothing', async () => {
    const site = await newSite();
    expect((await restore(site.id, moderator)).status).toBe(409);
    expect((await hide(site.id, user)).status).toBe(403);
    expect(await entriesOf(site.id)).toEqual([]);
    expect((await hide(site.id, moderator)).status).toBe(200);
    expect((await hide(site.id, moderator)).status).toBe(409);
    expect((await entriesOf(site.id)).map((e) => e.action)).toEqual(['site.hidden']);
    expect((await hide('no-such-site', moderator)).status).toBe(404);
    expect(await entriesOf('no-such-site')).toEqual([]);
  });

  it('two hides at once: one entry, for the hide that won', async () => {
    const site = await newSite();
    const answers = await Promise.all([hide(site.id, moderator), hide(site.id, otherModerator)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers.find((r) => r.status === 200)!;
    const entries = await entriesOf(site.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.after).toMatchObject({ hidden_at: winner.body.hidden_at });
  });

  it('pages newest first by cursor, filters by site; unfiltered lists every site', async () => {
    const a = await newSite();
    const b = await newSite();
    for (let i = 0; i < 3; i += 1) {
      expect((await hide(a.id, moderator, `round ${i}`)).status).toBe(200);
      expect((await restore(a.id, moderator)).status).toBe(200);
    }
    expect((await hide(b.id, moderator)).status).toBe(200);

    const all = await entriesOf(a.id);
    expect(all.map((e) => e.action)).toEqual([
      'site.restored',
      'site.hidden',
      'site.restored',
      'site.hidden',
      'site.restored',
      'site.hidden',
    ]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await audit({
        target_type: 'site',
        target_id: a.id,
        limit: 4,
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      const page = AuditPageResponse.parse(res.body);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual(all.map((e) => e.id));

    const latest = AuditPageResponse.parse((await audit({ limit: 1 })).body);
    expect(latest.entries[0]).toMatchObject({ target_id: b.id, action: 'site.hidden' });
    expect(latest.next_cursor).toBe(latest.entries[0]!.id);
    const bySite = AuditPageResponse.parse((await audit({ target_type: 'site' })).body);
    expect(bySite.entries.length).toBeGreaterThanOrEqual(7);
  });

  it('400 for a bad cursor or filter, 401 without a session, 403 for non-moderators', async () => {
    for (const query of <Array<Record<string, string | number>>>[
      { cursor: 'abc' },
      { cursor: '0' },
      { cursor: '99999999999999999999' },
      { target_id: 'x' },
      { target_type: 'app' },
      { limit: 0 },
      { limit: 101 },
    ]) {
      const res = await audit(query);
      expect([res.status, typeof res.body.error]).toEqual([400, 'string']);
    }
    const anon = await audit({}, null);
    expect([anon.status, anon.body]).toEqual([401, { error: 'Authentication required' }]);
    const other = await audit({}, user);
    expect([other.status, other.body]).toEqual([403, { error: MODERATORS_ONLY }]);
  });
});

describe('audit_log is append-only in the sites database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE with the trigger error, whatever the role', async () => {
    const site = await newSite();
    expect((await hide(site.id, moderator)).status).toBe(200);
    expect(await auditLogTriggerRefusals((sql) => h.db.$executeRawUnsafe(sql))).toEqual(
      AUDIT_LOG_TRIGGER_REFUSALS,
    );
    await expect(h.db.auditLog.deleteMany({})).rejects.toThrow('append-only');
    expect((await entriesOf(site.id)).map((e) => e.reason)).toEqual(['spam']);
  });

  it("the service's role may append but not UPDATE, DELETE or TRUNCATE (privileges revoked)", async () => {
    const probe = await probeAuditLogRoles(migrations, TEST_DATABASE_URL);
    expect(auditLogProbeFacts(probe)).toEqual(AUDIT_LOG_APPEND_ONLY);
  });

  it("is created by the kit's one migration text (app-store's)", () => {
    const sql = readFileSync(`${migrations}/20261123061000_audit_log/migration.sql`, 'utf8');
    expect(sql).toBe(AUDIT_LOG_MIGRATION_SQL);
  });

  it("lets account deletion pseudonymise through the kit's one migration text", () => {
    const sql = readFileSync(
      `${migrations}/20261129000000_audit_log_pseudonymise/migration.sql`,
      'utf8',
    );
    expect(sql).toBe(AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL);
  });
});
