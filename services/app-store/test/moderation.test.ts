// /api/v1/moderation/*: the report queue, an app's report history, restore, block, dismiss and
// the audit log, on real PostgreSQL and Redis. Restoring resolves the open reports (five new
// distinct reporters block the app again); a concurrent restore and report leave one
// consistent state and one audit entry each; every moderator endpoint refuses others.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  AppReportHistoryResponse,
  AuditPageResponse,
  ENDPOINTS,
  MODERATORS_ONLY,
  ModerationActionResponse,
  ModerationQueueResponse,
} from '@svc/types';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let author: TestUser;
let mod: TestUser;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 100 });
  author = h.user('author');
  mod = h.user('mod', { moderator: true });
});
afterAll(() => h.close());

const report = (u: TestUser, slug: string, body: Record<string, unknown> = {}) =>
  request(h.app).post(`/api/v1/apps/${slug}/report`).set('Cookie', u.cookie).send(body);
const act = (u: TestUser, slug: string, action: string, body: Record<string, unknown> = {}) =>
  request(h.app)
    .post(`/api/v1/moderation/apps/${slug}/${action}`)
    .set('Cookie', u.cookie)
    .send(body);
const get = (u: TestUser, path: string) => request(h.app).get(path).set('Cookie', u.cookie);

async function reportBy(n: number, slug: string, reason = 'spam') {
  const answers = [];
  for (let i = 0; i < n; i += 1) {
    const res = await report(h.user(`r${i}`), slug, { reason, detail: `detail ${i}` });
    expect(res.status).toBe(200);
    answers.push(res.body);
  }
  return answers;
}

const auditOf = async (appId: string) =>
  AuditPageResponse.parse(
    (await get(mod, `/api/v1/moderation/audit?target_type=app&target_id=${appId}`)).body,
  ).entries;

describe('moderators only', () => {
  const moderation = ENDPOINTS.filter((e) => e.path.startsWith('/api/v1/moderation'));

  it('covers the six app moderation endpoints of the catalogue', () => {
    expect(moderation.map((e) => e.operationId).sort()).toEqual([
      'blockApp',
      'dismissAppReports',
      'listAppAudit',
      'listAppReportHistory',
      'listAppReportQueue',
      'restoreApp',
    ]);
  });

  it.each(moderation.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s: 401 without a session, 403 "Moderators only" for a user who is not one',
    async (_name, e) => {
      const app = await h.seedApp(author, { status: 'blocked' });
      const path = e.path.replace('{slug}', app.slug);
      const call = () =>
        e.method === 'GET'
          ? request(h.app).get(path)
          : request(h.app).post(path).send({ reason: 'x' });
      expect((await call()).status).toBe(401);
      const res = await call().set('Cookie', h.user('someone').cookie);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: MODERATORS_ONLY });
      // The author of the app is no moderator either, and nothing changed.
      expect((await call().set('Cookie', author.cookie)).status).toBe(403);
      expect((await h.db.app.findUnique({ where: { id: app.id } }))?.status).toBe('blocked');
    },
  );
});

describe('the report queue and history', () => {
  it('lists apps with open reports, newest report first, reasons counted, reporters never named', async () => {
    const older = await h.seedApp(author, { name: 'Older' });
    const newer = await h.seedApp(author, { name: 'Newer' });
    await reportBy(2, older.slug, 'spam');
    await report(h.user('x'), older.slug, { reason: 'malware' });
    await reportBy(1, newer.slug, 'other');
    const res = await get(mod, '/api/v1/moderation/reports?limit=100');
    expect(res.status).toBe(200);
    const body = ModerationQueueResponse.parse(res.body);
    const mine = body.apps.filter((a) => [older.slug, newer.slug].includes(a.slug));
    expect(mine.map((a) => a.slug)).toEqual([newer.slug, older.slug]);
    expect(mine[1]).toMatchObject({
      name: 'Older',
      status: 'approved',
      open_reporters: 3,
      reasons: { spam: 2, malware: 1 },
    });
    expect(body.meta).toMatchObject({ limit: 100, offset: 0, count: body.apps.length });
    expect(body.meta.total).toBeGreaterThanOrEqual(2);
    const paged = ModerationQueueResponse.parse(
      (await get(mod, '/api/v1/moderation/reports?limit=1&offset=1')).body,
    );
    expect(paged.apps).toHaveLength(1);
    expect(paged.meta.total).toBe(body.meta.total);
    expect((await get(mod, '/api/v1/moderation/reports?limit=0')).status).toBe(400);

    const history = await get(mod, `/api/v1/moderation/apps/${older.slug}/reports`);
    expect(history.status).toBe(200);
    const parsed = AppReportHistoryResponse.parse(history.body);
    expect(parsed.reports).toHaveLength(3);
    expect(parsed.reports[0]).toMatchObject({ reason: 'malware', open: true, resolved_at: null });
    expect(JSON.stringify(history.body)).not.toMatch(/u_[0-9a-f]{12}/);
    expect((await get(mod, '/api/v1/moderation/apps/no-such-app/reports')).status).toBe(404);
  });
});

describe('restore, block, dismiss', () => {
  it('restore resolves the reports: five NEW distinct reporters are needed to block again', async () => {
    const app = await h.seedApp(author);
    const first = Array.from({ length: 5 }, (_, i) => h.user(`first${i}`));
    for (const u of first) expect((await report(u, app.slug)).status).toBe(200);
    expect((await h.db.app.findUnique({ where: { id: app.id } }))?.status).toBe('blocked');

    expect((await act(mod, app.slug, 'restore', {})).status).toBe(400);
    const res = await act(mod, app.slug, 'restore', { reason: 'false reports' });
    expect(res.status).toBe(200);
    expect(ModerationActionResponse.parse(res.body)).toEqual({
      slug: app.slug,
      status: 'approved',
      resolved_reports: 5,
    });
    expect((await act(mod, app.slug, 'restore', { reason: 'again' })).status).toBe(409);
    expect((await get(h.user(), `/api/v1/apps/${app.slug}`)).status).toBe(200);

    // Earlier reporters may report again; they count as new open reports.
    const again = await report(first[0]!, app.slug);
    expect(again.body).toMatchObject({ report_count: 1, blocked: false });
    const more = await reportBy(3, app.slug);
    expect(more.map((b) => b.blocked)).toEqual([false, false, false]);
    const fifth = await report(h.user('fifth'), app.slug);
    expect(fifth.body).toMatchObject({ report_count: 5, blocked: true });

    const entries = await auditOf(app.id);
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['app.blocked', 'system'],
      ['app.restored', mod.id],
      ['app.blocked', 'system'],
    ]);
    expect(entries[1]).toMatchObject({
      reason: 'false reports',
      before: { status: 'blocked', open_reports: 5 },
      after: { status: 'approved', open_reports: 0 },
    });
    const history = AppReportHistoryResponse.parse(
      (await get(mod, `/api/v1/moderation/apps/${app.slug}/reports`)).body,
    );
    expect(history.reports.filter((r) => r.open)).toHaveLength(5);
    expect(history.reports.filter((r) => !r.open)).toHaveLength(5);
  });

  it('with REPORT_DISTINCT_NETWORKS on, only open reports count too', async () => {
    const strict = await startHarness({
      reportDistinctNetworks: true,
      trustProxy: true,
      rateLimitScale: 100,
    });
    try {
      const a = strict.user('a');
      const m = strict.user('m', { moderator: true });
      const app = await strict.seedApp(a);
      const from = (i: number) => `10.${i}.0.1`;
      const rep = (u: TestUser, i: number) =>
        request(strict.app)
          .post(`/api/v1/apps/${app.slug}/report`)
          .set('Cookie', u.cookie)
          .set('X-Forwarded-For', from(i))
          .send({});
      const first = Array.from({ length: 5 }, (_, i) => strict.user(`f${i}`));
      for (const [i, u] of first.entries()) await rep(u, i);
      expect((await strict.db.app.findUnique({ where: { id: app.id } }))?.status).toBe('blocked');
      const restored = await request(strict.app)
        .post(`/api/v1/moderation/apps/${app.slug}/restore`)
        .set('Cookie', m.cookie)
        .send({ reason: 'ok' });
      expect(restored.status).toBe(200);
      // The same five networks again, by the same users: counted from zero.
      const answers = [];
      for (const [i, u] of first.entries()) answers.push((await rep(u, i)).body);
      expect(answers.map((b) => b.report_count)).toEqual([1, 2, 3, 4, 5]);
      expect(answers[4].blocked).toBe(true);
    } finally {
      await strict.close();
    }
  });

  it('blocks by hand with a reason (409 when already blocked), announced like an automatic block', async () => {
    const app = await h.seedApp(author);
    await reportBy(2, app.slug);
    expect((await act(mod, app.slug, 'block', { reason: '' })).status).toBe(400);
    const res = await act(mod, app.slug, 'block', { reason: 'phishing' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ slug: app.slug, status: 'blocked', resolved_reports: 0 });
    expect((await act(mod, app.slug, 'block', { reason: 'again' })).status).toBe(409);
    expect((await get(h.user(), `/api/v1/apps/${app.slug}`)).status).toBe(404);
    expect((await act(mod, 'no-such-app', 'block', { reason: 'x' })).status).toBe(404);
    const entries = await auditOf(app.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: mod.id,
      action: 'app.blocked',
      reason: 'phishing',
      before: { status: 'approved', open_reports: 2 },
      after: { status: 'blocked', open_reports: 2 },
    });
    const jobs = await h.systemJobs();
    expect(jobs.some((j) => JSON.stringify(j.data).includes(app.slug))).toBe(true);
  });

  it('dismiss resolves the open reports without blocking', async () => {
    const app = await h.seedApp(author);
    const reporters = Array.from({ length: 4 }, (_, i) => h.user(`d${i}`));
    for (const u of reporters) await report(u, app.slug, { reason: 'spam' });
    const res = await act(mod, app.slug, 'dismiss');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ slug: app.slug, status: 'approved', resolved_reports: 4 });
    const queue = ModerationQueueResponse.parse(
      (await get(mod, '/api/v1/moderation/reports?limit=100')).body,
    );
    expect(queue.apps.map((a) => a.slug)).not.toContain(app.slug);
    // The fifth report no longer blocks: the count starts again.
    expect((await report(h.user('late'), app.slug)).body).toMatchObject({
      report_count: 1,
      blocked: false,
    });
    const entries = await auditOf(app.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: mod.id,
      action: 'reports.dismissed',
      reason: '4 reports: 4 spam',
      before: { status: 'approved', open_reports: 4 },
      after: { status: 'approved', open_reports: 0 },
    });
    expect((await act(mod, 'no-such-app', 'dismiss')).status).toBe(404);
  });
});

describe('concurrency', () => {
  it('a restore racing reports leaves one consistent state and one audit entry each', async () => {
    for (let round = 0; round < 5; round += 1) {
      const app = await h.seedApp(author);
      await reportBy(5, app.slug);
      const late = Array.from({ length: 5 }, (_, i) => h.user(`late${i}`));
      const [restored, ...reports] = await Promise.all([
        act(mod, app.slug, 'restore', { reason: 'race' }),
        ...late.map((u) => report(u, app.slug)),
      ]);
      expect(restored!.status).toBe(200);
      // A report either came before the restore (409: blocked) or after it (recorded).
      for (const r of reports) expect([200, 409]).toContain(r.status);
      const recorded = reports.filter((r) => r.status === 200).length;
      const row = await h.db.app.findUnique({ where: { id: app.id } });
      const open = await h.db.appReport.count({ where: { appId: app.id, resolvedAt: null } });
      expect(row?.reportCount).toBe(recorded);
      expect(open).toBe(recorded);
      expect(row?.status).toBe(recorded >= 5 ? 'blocked' : 'approved');
      const entries = await auditOf(app.id);
      const restores = entries.filter((e) => e.action === 'app.restored');
      const blocks = entries.filter((e) => e.action === 'app.blocked');
      expect(restores).toHaveLength(1);
      expect(blocks).toHaveLength(recorded >= 5 ? 2 : 1);
    }
  });
});

describe('the audit log', () => {
  it('pages newest first with a cursor; a bad cursor or a target_id alone is 400', async () => {
    const app = await h.seedApp(author);
    await act(mod, app.slug, 'block', { reason: 'one' });
    await act(mod, app.slug, 'restore', { reason: 'two' });
    await act(mod, app.slug, 'block', { reason: 'three' });
    const base = `/api/v1/moderation/audit?target_type=app&target_id=${app.id}`;
    const first = AuditPageResponse.parse((await get(mod, `${base}&limit=2`)).body);
    expect(first.entries.map((e) => e.reason)).toEqual(['three', 'two']);
    expect(first.next_cursor).not.toBeNull();
    const second = AuditPageResponse.parse(
      (await get(mod, `${base}&limit=2&cursor=${first.next_cursor}`)).body,
    );
    expect(second.entries.map((e) => e.reason)).toEqual(['one']);
    expect(second.next_cursor).toBeNull();
    expect((await get(mod, `${base}&cursor=abc`)).status).toBe(400);
    expect((await get(mod, `/api/v1/moderation/audit?target_id=${app.id}`)).status).toBe(400);
    expect((await get(mod, '/api/v1/moderation/audit?target_type=site')).status).toBe(400);
    const all = AuditPageResponse.parse((await get(mod, '/api/v1/moderation/audit')).body);
    expect(all.entries.length).toBeGreaterThanOrEqual(3);
  });
});
