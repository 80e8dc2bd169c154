// POST /api/v1/apps/{slug}/report: one report per user, the 5th distinct reporter blocks
// the app exactly once (also under concurrency), and the block reaches chat's queue once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ReportAppResponse } from '@svc/types';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let author: TestUser;
beforeAll(async () => {
  // The concurrency rounds send ~150 reports from one test user set.
  h = await startHarness({ rateLimitScale: 100 });
  author = h.user('author');
});
afterAll(() => h.close());

const report = (u: TestUser, slug: string, body: Record<string, unknown> = {}) =>
  request(h.app).post(`/api/v1/apps/${slug}/report`).set('Cookie', u.cookie).send(body);

describe('reporting an app', () => {
  it('counts distinct reporters and blocks the app at the 5th, with the documented messages', async () => {
    const app = await h.seedApp(author, { slug: 'shady-app', name: 'Shady App' });
    const reporters = Array.from({ length: 5 }, (_, i) => h.user(`r${i}`));
    const answers = [];
    for (const [i, r] of reporters.entries()) {
      const res = await report(
        r,
        'shady-app',
        i === 0 ? { reason: 'spam', detail: 'ads everywhere' } : {},
      );
      expect(res.status).toBe(200);
      answers.push(ReportAppResponse.parse(res.body));
    }
    expect(answers.slice(0, 4)).toEqual([
      {
        success: true,
        report_count: 1,
        blocked: false,
        message: 'Report recorded. 4 more reports needed to trigger the automatic block.',
      },
      {
        success: true,
        report_count: 2,
        blocked: false,
        message: 'Report recorded. 3 more reports needed to trigger the automatic block.',
      },
      {
        success: true,
        report_count: 3,
        blocked: false,
        message: 'Report recorded. 2 more reports needed to trigger the automatic block.',
      },
      {
        success: true,
        report_count: 4,
        blocked: false,
        message: 'Report recorded. 1 more report needed to trigger the automatic block.',
      },
    ]);
    expect(answers[4]).toEqual({
      success: true,
      report_count: 5,
      blocked: true,
      message: 'Report recorded. The app reached 5 reports and was automatically blocked.',
    });
    const row = await h.db.app.findUniqueOrThrow({ where: { id: app.id } });
    expect(row).toMatchObject({ status: 'blocked', reportCount: 5 });
    const stored = await h.db.appReport.findMany({
      where: { appId: app.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(stored).toHaveLength(5);
    expect(stored[0]).toMatchObject({ reason: 'spam', detail: 'ads everywhere' });
    expect(stored[1]).toMatchObject({ reason: 'other', detail: null });

    // Gone from the listing and the detail; a 6th reporter gets 409.
    expect((await request(h.app).get('/api/v1/apps/shady-app')).status).toBe(404);
    const listed = await request(h.app).get('/api/v1/apps').query({ q: 'shady' });
    expect(listed.body.meta.total).toBe(0);
    const sixth = await report(h.user('late'), 'shady-app');
    expect(sixth.status).toBe(409);
    expect(sixth.body).toEqual({ error: 'App is already blocked' });

    // Chat is told once, on the durable queue.
    const jobs = (await h.systemJobs()).filter((j) => j.data.content_params.slug === 'shady-app');
    expect(jobs.map((j) => j.data)).toEqual([
      { content_key: 'app_blocked', content_params: { slug: 'shady-app', name: 'Shady App' } },
    ]);
  });

  it('refuses a second report by the same user with 409', async () => {
    await h.seedApp(author, { slug: 'twice-app' });
    const r = h.user('twice');
    expect((await report(r, 'twice-app')).status).toBe(200);
    const again = await report(r, 'twice-app', { reason: 'malware' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'You have already reported this app' });
    expect((await h.db.app.findUniqueOrThrow({ where: { slug: 'twice-app' } })).reportCount).toBe(
      1,
    );
  });

  it('answers 404 for an unknown app, 403 to the author, 401 without a session', async () => {
    const unknown = await report(h.user(), 'no-such-app');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'App not found' });

    await h.seedApp(author, { slug: 'own-app' });
    const own = await report(author, 'own-app');
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ error: 'You cannot report your own app' });

    const anonymous = await request(h.app).post('/api/v1/apps/own-app/report').send({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Authentication required' });
    expect((await h.db.app.findUniqueOrThrow({ where: { slug: 'own-app' } })).reportCount).toBe(0);
  });

  it('refuses an API key with 403 (reports are by users)', async () => {
    const dev = h.user('keyholder');
    await h.seedApp(dev, { slug: 'key-app' });
    await h.seedApp(author, { slug: 'target-app' });
    const { key } = await h.createKey(dev, 'key-app');
    const res = await request(h.app)
      .post('/api/v1/apps/target-app/report')
      .set('Authorization', `Bearer ${key}`)
      .send({});
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/session cookie/);
  });

  it.each([
    [{ reason: 'boring' }],
    [{ reason: 5 }],
    [{ detail: 'x'.repeat(501) }],
    [{ detail: ['not', 'a', 'string'] }],
  ])('answers 400 for the invalid body %j', async (body) => {
    await h
      .seedApp(author, {
        slug: `bad-body-${Object.keys(body)[0]}-${Math.random().toString(36).slice(2, 7)}`,
      })
      .then(async (app) => {
        const res = await report(h.user(), app.slug, body);
        expect(res.status).toBe(400);
        expect(typeof res.body.error).toBe('string');
      });
  });

  it('accepts a 500-character detail and every documented reason', async () => {
    await h.seedApp(author, { slug: 'reasons-app' });
    for (const reason of ['spam', 'malware', 'phishing', 'illegal']) {
      const res = await report(h.user(), 'reasons-app', { reason, detail: 'd'.repeat(500) });
      expect(res.status).toBe(200);
    }
  });
});

describe('five simultaneous reports', () => {
  it('block the app exactly once, in 30 rounds', async () => {
    const ROUNDS = 30;
    for (let round = 0; round < ROUNDS; round++) {
      const slug = `race-${round}`;
      await h.seedApp(author, { slug, name: `Race ${round}` });
      const reporters = Array.from({ length: 5 }, () => h.user('racer'));
      const answers = await Promise.all(reporters.map((r) => report(r, slug)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((a) => a.body.blocked === true)).toHaveLength(1);
      expect(answers.map((a) => a.body.report_count).sort()).toEqual([1, 2, 3, 4, 5]);
      const row = await h.db.app.findUniqueOrThrow({ where: { slug } });
      expect(row).toMatchObject({ status: 'blocked', reportCount: 5 });
    }
    const jobs = (await h.systemJobs()).filter((j) =>
      j.data.content_params.slug.startsWith('race-'),
    );
    expect(jobs).toHaveLength(ROUNDS);
    expect(new Set(jobs.map((j) => j.data.content_params.slug)).size).toBe(ROUNDS);
  }, 120_000);

  it('a sixth simultaneous reporter gets 409 and the count stays at 5', async () => {
    for (let round = 0; round < 5; round++) {
      const slug = `race6-${round}`;
      await h.seedApp(author, { slug });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => report(h.user('six'), slug)),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 409]);
      expect(answers.filter((a) => a.body.blocked === true)).toHaveLength(1);
      expect((await h.db.app.findUniqueOrThrow({ where: { slug } })).reportCount).toBe(5);
    }
  }, 60_000);
});

describe('the app_blocked message and the block commit together', () => {
  let quiet: Harness;
  beforeAll(async () => {
    quiet = await startHarness({ relayOutbox: false });
  });
  afterAll(() => quiet.close());

  it('waits in the outbox when nothing relays it, and is sent once a relay runs', async () => {
    const owner = quiet.user('owner');
    await quiet.seedApp(owner, { slug: 'outboxed-app', name: 'Outboxed App' });
    for (let i = 0; i < 5; i++) {
      const res = await request(quiet.app)
        .post('/api/v1/apps/outboxed-app/report')
        .set('Cookie', quiet.user(`o${i}`).cookie)
        .send({});
      expect(res.status).toBe(200);
    }
    // What a process that died right after answering would leave behind:
    const waiting = await quiet.db.systemMessageOutbox.findMany();
    expect(waiting.map((r) => [r.contentKey, r.contentParams])).toEqual([
      ['app_blocked', { slug: 'outboxed-app', name: 'Outboxed App' }],
    ]);
    const jobs = await quiet.systemJobs();
    expect(jobs.map((j) => j.data)).toEqual([
      {
        content_key: 'app_blocked',
        content_params: { slug: 'outboxed-app', name: 'Outboxed App' },
      },
    ]);
    expect(await quiet.db.systemMessageOutbox.count()).toBe(0);
  });
});
