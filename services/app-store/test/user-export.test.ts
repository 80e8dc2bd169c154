// GET /internal/users/{id}/export (auth → app-store, the data export): on the real app,
// PostgreSQL and Redis, the user's apps with their blocks, key metadata (never the secret or
// its hash), installs, reports, appeals, developer snapshot and the audit entries by and
// about them (actors as roles); nothing of another user; the token guard.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AppsExportPart, internalUserExportPath } from '@svc/types';
import { INTERNAL_TOKEN, startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let ann: TestUser;
let bob: TestUser;
let mod: TestUser;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 100 });
  ann = h.user('ann');
  bob = h.user('bob');
  mod = h.user('mod', { moderator: true });
});
afterAll(() => h.close());

const as = (u: TestUser, r: request.Test) => r.set('Cookie', u.cookie);
const exportOf = (userId: string, token: string | null = INTERNAL_TOKEN) => {
  const r = request(h.app).get(internalUserExportPath(userId));
  return token === null ? r : r.set('X-Internal-Token', token);
};

describe('GET /internal/users/{id}/export', () => {
  it("answers the user's rows of every table, and nothing of others", async () => {
    expect((await h.submit(ann, { slug: 'ann-app', name: 'Ann App', url: 'https://ann.example' })).status).toBe(201);
    expect((await h.submit(bob, { slug: 'bob-app', name: 'Bob App', url: 'https://bob.example' })).status).toBe(201);
    const key = await h.createKey(ann, 'ann-app');
    await h.createKey(bob, 'bob-app');
    expect((await as(ann, request(h.app).put('/api/v1/me/installed/bob-app'))).status).toBe(200);
    expect((await as(bob, request(h.app).put('/api/v1/me/installed/ann-app'))).status).toBe(200);
    const reported = await as(ann, request(h.app).post('/api/v1/apps/bob-app/report')).send({ reason: 'spam', detail: 'ads everywhere' });
    expect(reported.status).toBe(200);
    for (const reason of ['malware', 'spam', 'spam', 'other', 'spam'])
      expect((await as(h.user('reporter'), request(h.app).post('/api/v1/apps/ann-app/report')).send({ reason })).status).toBe(200);
    const appealed = await as(ann, request(h.app).post('/api/v1/me/apps/ann-app/appeal')).send({ text: 'one forum thread did this' });
    expect(appealed.status).toBe(201);
    const restored = await as(mod, request(h.app).post('/api/v1/moderation/apps/ann-app/restore')).send({ reason: 'brigading' });
    expect(restored.status).toBe(200);

    const res = await exportOf(ann.id);
    expect(res.status).toBe(200);
    const { data, moderation } = AppsExportPart.parse(res.body);
    expect(data.developer).toEqual({ email: ann.email, username: ann.username, updated_at: expect.stringMatching(/Z$/) });
    expect(data.apps.map((a) => [a.slug, a.status, a.block])).toEqual([['ann-app', 'approved', null]]);
    expect(data.apps[0]).toMatchObject({ name: 'Ann App', url: 'https://ann.example', created_at: expect.stringMatching(/Z$/) });
    const annApp = { id: data.apps[0]!.id, slug: 'ann-app', name: 'Ann App' };
    expect(data.api_keys).toEqual([
      { id: key.id, app: annApp, prefix: expect.any(String), created_at: expect.stringMatching(/Z$/), last_used_at: null, revoked_at: null },
    ]);
    expect(key.key.startsWith(data.api_keys[0]!.prefix)).toBe(true);
    expect(data.installs).toEqual([
      { app: expect.objectContaining({ slug: 'bob-app' }), installed_at: expect.stringMatching(/Z$/), removed_at: null },
    ]);
    expect(data.reports).toEqual([
      { id: expect.any(String), app: expect.objectContaining({ slug: 'bob-app' }), reason: 'spam', detail: 'ads everywhere', created_at: expect.stringMatching(/Z$/), resolved_at: null },
    ]);
    expect(data.appeals).toEqual([
      { id: expect.any(String), app: annApp, text: 'one forum thread did this', created_at: expect.stringMatching(/Z$/), closed_at: expect.stringMatching(/Z$/) },
    ]);
    expect(moderation.by_you.map((e) => [e.action, e.target_id])).toEqual([['app.appealed', annApp.id]]);
    expect(moderation.about_you.map((e) => [e.service, e.action, e.actor, e.reason])).toEqual([
      ['app-store', 'app.blocked', 'system', '5 reports: 3 spam, 1 malware, 1 other'],
      ['app-store', 'app.restored', 'moderator', 'brigading'],
    ]);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(key.key);
    for (const other of [bob.id, bob.email, mod.id, 'reporter_', 'key_hash', 'reporter_network'])
      expect(text).not.toContain(other);

    // The moderator's export holds the restore as theirs.
    const theirs = AppsExportPart.parse((await exportOf(mod.id)).body);
    expect(theirs.moderation.by_you.map((e) => [e.action, e.target_id])).toEqual([['app.restored', annApp.id]]);
    expect(theirs.data.apps).toEqual([]);
  });

  it('shows a blocked app with its block, as the author sees it', async () => {
    const carl = h.user('carl');
    expect((await h.submit(carl, { slug: 'carl-app', name: 'Carl App', url: 'https://carl.example' })).status).toBe(201);
    expect((await as(mod, request(h.app).post('/api/v1/moderation/apps/carl-app/block')).send({ reason: 'phishing' })).status).toBe(200);
    const { data } = AppsExportPart.parse((await exportOf(carl.id)).body);
    expect(data.apps[0]).toMatchObject({
      status: 'blocked',
      block: { by: 'moderator', reason_summary: 'phishing', appeal: null, can_appeal: true },
    });
  });

  it('answers an empty part for a user app-store knows nothing about', async () => {
    const res = await exportOf('nobody-here');
    expect([res.status, res.body]).toEqual([
      200,
      {
        data: { developer: null, apps: [], api_keys: [], installs: [], reports: [], appeals: [] },
        moderation: { by_you: [], about_you: [] },
      },
    ]);
  });

  it('refuses callers without the right token with 403, a session included', async () => {
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await exportOf(ann.id, token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    expect((await as(ann, request(h.app).get(internalUserExportPath(ann.id)))).status).toBe(403);
    expect((await exportOf('x'.repeat(129))).status).toBe(404);
  });
});
