// The author's side of moderation, on real PostgreSQL and Redis: a blocked
// app in GET /me/apps says when, by whom and why (reports counted per reason, reporters never
// named); one appeal per block of at most 1,000 characters, seen by moderators in the queue
// and the history, closed by a restore (a new block allows a new appeal); the author's view
// of the audit log (their app only, actors as roles); the notify-email jobs committed with
// each block and restore.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  AppReportHistoryResponse,
  AppealResponse,
  AuditPageResponse,
  AuthorAuditPageResponse,
  ModerationQueueResponse,
  MyAppsResponse,
  NotifyEmailJob,
} from '@svc/types';
import { actorForAuthor, appealEntry } from '../src/domain/audit-entry.js';
import { ALREADY_APPEALED, blockKey, blockedBy, decideAppeal } from '../src/domain/appeal.js';
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

const report = (slug: string, reason: string) =>
  request(h.app)
    .post(`/api/v1/apps/${slug}/report`)
    .set('Cookie', h.user('reporter').cookie)
    .send({ reason });
const act = (slug: string, action: string, body: Record<string, unknown> = {}) =>
  request(h.app)
    .post(`/api/v1/moderation/apps/${slug}/${action}`)
    .set('Cookie', mod.cookie)
    .send(body);
const appeal = (u: TestUser, slug: string, body: unknown) =>
  request(h.app)
    .post(`/api/v1/me/apps/${slug}/appeal`)
    .set('Cookie', u.cookie)
    .send(body as object);
const myApps = async (u: TestUser) =>
  MyAppsResponse.parse((await request(h.app).get('/api/v1/me/apps').set('Cookie', u.cookie)).body)
    .apps;
const queue = async () =>
  ModerationQueueResponse.parse(
    (await request(h.app).get('/api/v1/moderation/reports?limit=100').set('Cookie', mod.cookie))
      .body,
  ).apps;
const history = async (slug: string) =>
  AppReportHistoryResponse.parse(
    (await request(h.app).get(`/api/v1/moderation/apps/${slug}/reports`).set('Cookie', mod.cookie))
      .body,
  );
const noticesFor = async (userId: string) =>
  (await h.noticeJobs())
    .map((j) => ({ id: j.id, name: j.name, data: NotifyEmailJob.parse(j.data) }))
    .filter((j) => j.data.user_id === userId)
    .sort((a, b) => a.data.at.localeCompare(b.data.at));

async function blockByReports(slug: string) {
  for (const reason of ['spam', 'malware', 'spam', 'malware', 'spam'])
    expect((await report(slug, reason)).status).toBe(200);
}

describe('rules', () => {
  const blocked = { authorId: 'u1', status: 'blocked' as const, blockAuditId: 7n };
  it('only the author appeals, only a blocked app, once per block', () => {
    expect(decideAppeal(undefined, 'u1', false)).toEqual({ kind: 'not-found' });
    expect(decideAppeal(blocked, 'u2', false)).toEqual({ kind: 'not-found' });
    expect(decideAppeal({ ...blocked, status: 'approved' }, 'u1', false).kind).toBe('conflict');
    expect(decideAppeal(blocked, 'u1', true)).toEqual({
      kind: 'conflict',
      message: ALREADY_APPEALED,
    });
    expect(decideAppeal(blocked, 'u1', false)).toEqual({ kind: 'appeal', blockKey: 7n });
    expect(blockKey(null)).toBe(0n);
  });
  it('the author sees roles, never a moderator id; blocks by the system are by reports', () => {
    expect(actorForAuthor('system', 'u1')).toBe('system');
    expect(actorForAuthor('u1', 'u1')).toBe('author');
    expect(actorForAuthor('mod-42', 'u1')).toBe('moderator');
    expect(blockedBy('system')).toBe('reports');
    expect(blockedBy('mod-42')).toBe('moderator');
    expect(appealEntry({ authorId: 'u1', appId: 'a1', text: 'please' })).toMatchObject({
      actor: 'u1',
      action: 'app.appealed',
      reason: 'please',
    });
  });
});

describe('a block by reports, the appeal, the restore and a new block', () => {
  let slug = '';
  let appId = '';
  beforeAll(async () => {
    const app = await h.seedApp(author);
    slug = app.slug;
    appId = app.id;
    await h.seedApp(author, { slug: `${slug}-fine` });
    await blockByReports(slug);
  });

  it('GET /me/apps: when and why (reasons counted, no reporter), appeal open to the author', async () => {
    const apps = await myApps(author);
    const mine = apps.find((a) => a.slug === slug)!;
    expect(mine.status).toBe('blocked');
    expect(mine.block).toMatchObject({
      by: 'reports',
      reason_summary: '5 reports: 3 spam, 2 malware',
      appeal: null,
      can_appeal: true,
    });
    expect(Date.now() - Date.parse(mine.block!.blocked_at)).toBeLessThan(60_000);
    expect(JSON.stringify(mine)).not.toMatch(/reporter_/);
    expect(apps.find((a) => a.slug === `${slug}-fine`)!.block).toBeNull();
  });

  it('the block wrote the author an app_blocked notice job (job id from its audit entry)', async () => {
    const [notice] = await noticesFor(author.id);
    const entries = AuditPageResponse.parse(
      (
        await request(h.app)
          .get(`/api/v1/moderation/audit?target_type=app&target_id=${appId}`)
          .set('Cookie', mod.cookie)
      ).body,
    ).entries;
    expect(notice).toMatchObject({
      id: `app-notice-${entries[0]!.id}`,
      name: 'app_blocked',
      data: {
        template: 'app_blocked',
        app: { slug },
        by: 'reports',
        reason_summary: '5 reports: 3 spam, 2 malware',
      },
    });
  });

  it('appeal: 400 for no text or 1,001 characters, 404 for others and unknown apps, 403 with a key, 201 once, then 409', async () => {
    expect((await appeal(author, slug, {})).status).toBe(400);
    expect((await appeal(author, slug, { text: '   ' })).status).toBe(400);
    expect((await appeal(author, slug, { text: 'x'.repeat(1001) })).status).toBe(400);
    expect((await appeal(h.user('stranger'), slug, { text: 'mine' })).status).toBe(404);
    expect((await appeal(mod, slug, { text: 'mine' })).status).toBe(404);
    expect((await appeal(author, 'no-such-app', { text: 'x' })).status).toBe(404);
    const key = await h.db.app.findUnique({ where: { slug: `${slug}-fine` } });
    expect((await appeal(author, key!.slug, { text: 'not blocked' })).status).toBe(409);
    const text = `${'A'.repeat(999)}!`;
    const first = await appeal(author, slug, { text });
    expect(first.status).toBe(201);
    expect(AppealResponse.parse(first.body)).toMatchObject({ slug, appeal: { text } });
    const again = await appeal(author, slug, { text: 'once more' });
    expect([again.status, again.body]).toEqual([409, { error: ALREADY_APPEALED }]);
    const mine = (await myApps(author)).find((a) => a.slug === slug)!;
    expect(mine.block).toMatchObject({ appeal: { text }, can_appeal: false });
  });

  it('concurrent appeals of one block: exactly one is recorded', async () => {
    const other = await h.seedApp(author, { status: 'blocked' });
    const answers = await Promise.all(
      [1, 2, 3, 4].map((i) => appeal(author, other.slug, { text: `race ${i}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await h.db.appAppeal.count({ where: { appId: other.id } })).toBe(1);
  });

  it('moderators see the appeal in the queue and the history; its audit entry names the author', async () => {
    const item = (await queue()).find((a) => a.slug === slug)!;
    expect(item).toMatchObject({ open_reporters: 5, appeal: { text: `${'A'.repeat(999)}!` } });
    const { appeals } = await history(slug);
    expect(appeals).toHaveLength(1);
    expect(appeals[0]).toMatchObject({ open: true, closed_at: null });
    const entries = AuditPageResponse.parse(
      (
        await request(h.app)
          .get(`/api/v1/moderation/audit?target_type=app&target_id=${appId}`)
          .set('Cookie', mod.cookie)
      ).body,
    ).entries;
    expect(entries[0]).toMatchObject({ action: 'app.appealed', actor: author.id });
  });

  it('restore closes the appeal, clears the block and writes an app_restored notice', async () => {
    expect((await act(slug, 'restore', { reason: 'the reports were false' })).status).toBe(200);
    const { appeals } = await history(slug);
    expect(appeals[0]!.open).toBe(false);
    expect(appeals[0]!.closed_at).not.toBeNull();
    expect((await myApps(author)).find((a) => a.slug === slug)!.block).toBeNull();
    expect((await queue()).find((a) => a.slug === slug)).toBeUndefined();
    expect((await appeal(author, slug, { text: 'late' })).status).toBe(409);
    const notices = await noticesFor(author.id);
    expect(notices.map((n) => n.data.template)).toEqual(['app_blocked', 'app_restored']);
    expect(notices[1]!.data).toMatchObject({
      app: { slug },
      reason_summary: 'the reports were false',
    });
  });

  it('a new block (by hand) allows a new appeal; the author is told it was a moderator and why', async () => {
    expect((await act(slug, 'block', { reason: 'phishing page found' })).status).toBe(200);
    const mine = (await myApps(author)).find((a) => a.slug === slug)!;
    expect(mine.block).toMatchObject({
      by: 'moderator',
      reason_summary: 'phishing page found',
      appeal: null,
      can_appeal: true,
    });
    expect((await appeal(author, slug, { text: 'fixed the page' })).status).toBe(201);
    const notices = await noticesFor(author.id);
    expect(notices.map((n) => n.data.template)).toEqual([
      'app_blocked',
      'app_restored',
      'app_blocked',
    ]);
    expect(notices[2]!.data).toMatchObject({
      by: 'moderator',
      reason_summary: 'phishing page found',
    });
    expect(new Set(notices.map((n) => n.id)).size).toBe(3);
  });

  it("the author's audit view: their app only, newest first, actors as roles, paged", async () => {
    const path = `/api/v1/me/apps/${slug}/audit`;
    const res = await request(h.app).get(path).set('Cookie', author.cookie);
    expect(res.status).toBe(200);
    const page = AuthorAuditPageResponse.parse(res.body);
    expect(page.entries.map((e) => [e.action, e.actor])).toEqual([
      ['app.appealed', 'author'],
      ['app.blocked', 'moderator'],
      ['app.restored', 'moderator'],
      ['app.appealed', 'author'],
      ['app.blocked', 'system'],
    ]);
    expect(JSON.stringify(page)).not.toContain(mod.id);
    expect(page.entries.every((e) => e.target_id === appId)).toBe(true);
    const first = AuthorAuditPageResponse.parse(
      (await request(h.app).get(`${path}?limit=2`).set('Cookie', author.cookie)).body,
    );
    expect(first.entries).toHaveLength(2);
    const second = AuthorAuditPageResponse.parse(
      (
        await request(h.app)
          .get(`${path}?limit=2&cursor=${first.next_cursor}`)
          .set('Cookie', author.cookie)
      ).body,
    );
    expect(second.entries.map((e) => e.id)).toEqual(page.entries.slice(2, 4).map((e) => e.id));
    expect(
      (await request(h.app).get(`${path}?cursor=zz`).set('Cookie', author.cookie)).status,
    ).toBe(400);
    expect((await request(h.app).get(path).set('Cookie', h.user('stranger').cookie)).status).toBe(
      404,
    );
    expect((await request(h.app).get(path).set('Cookie', mod.cookie)).status).toBe(404);
    expect(
      (await request(h.app).get('/api/v1/me/apps/no-such-app/audit').set('Cookie', author.cookie))
        .status,
    ).toBe(404);
    expect((await request(h.app).get(path)).status).toBe(401);
  });

  it('with an API key: the audit view answers, an appeal is refused (session only)', async () => {
    await act(slug, 'restore', { reason: 'ok' });
    const key = await h.createKey(author, slug);
    await act(slug, 'block', { reason: 'again' });
    const viaKey = await request(h.app)
      .get(`/api/v1/me/apps/${slug}/audit`)
      .set('Authorization', `Bearer ${key.key}`);
    expect(viaKey.status).toBe(200);
    const refused = await request(h.app)
      .post(`/api/v1/me/apps/${slug}/appeal`)
      .set('Authorization', `Bearer ${key.key}`)
      .send({ text: 'by key' });
    expect(refused.status).toBe(403);
  });
});

describe('an appeal racing a restore', () => {
  it('leaves one consistent state, 5 rounds: a recorded appeal is closed, or it was refused', async () => {
    for (let round = 0; round < 5; round += 1) {
      const app = await h.seedApp(author);
      expect((await act(app.slug, 'block', { reason: `round ${round}` })).status).toBe(200);
      const [appealed, restored] = await Promise.all([
        appeal(author, app.slug, { text: `round ${round}` }),
        act(app.slug, 'restore', { reason: 'fine' }),
      ]);
      expect(restored.status).toBe(200);
      const rows = await h.db.appAppeal.findMany({ where: { appId: app.id } });
      if (appealed.status === 201) {
        expect(rows).toHaveLength(1);
        expect(rows[0]!.closedAt).not.toBeNull();
      } else {
        expect([appealed.status, appealed.body]).toEqual([409, { error: 'App is not blocked' }]);
        expect(rows).toHaveLength(0);
      }
      const row = await h.db.app.findUnique({ where: { id: app.id } });
      expect([row!.status, row!.blockAuditId]).toEqual(['approved', null]);
    }
  });
});

describe('the queue lists a blocked app with an appeal and no open reports', () => {
  it('open_reporters 0, no reasons, latest_report_at null, the appeal; newest first', async () => {
    const quiet = await h.seedApp(author);
    expect((await act(quiet.slug, 'block', { reason: 'by hand' })).status).toBe(200);
    expect((await queue()).find((a) => a.slug === quiet.slug)).toBeUndefined();
    expect((await appeal(author, quiet.slug, { text: 'why?' })).status).toBe(201);
    const items = await queue();
    expect(items[0]).toEqual({
      slug: quiet.slug,
      name: quiet.name,
      status: 'blocked',
      open_reporters: 0,
      reasons: {},
      latest_report_at: null,
      appeal: { text: 'why?', created_at: expect.any(String) },
    });
    const total = ModerationQueueResponse.parse(
      (await request(h.app).get('/api/v1/moderation/reports?limit=1').set('Cookie', mod.cookie))
        .body,
    ).meta.total;
    expect(total).toBe(items.length);
  });
});
