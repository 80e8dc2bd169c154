// GET /internal/users/{id}/export (auth → sites, the data export): on the real app,
// PostgreSQL and Redis, every table that keeps a user id answers for that user only
// (submissions, claims, bookmarks, boosts, idempotency keys), with the audit entries about
// their sites as roles; the token guard; an unknown user's empty part.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SitesExportPart, internalUserExportPath, type Site } from '@svc/types';
import { INTERNAL_TOKEN, nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
let ann: string;
let bob: string;
let moderator: string;
beforeAll(async () => {
  h = await startHarness();
  ann = h.sessionCookie({ id: 'ann-1', username: 'ann' });
  bob = h.sessionCookie({ id: 'bob-1', username: 'bob' });
  moderator = h.sessionCookie({ id: 'mod-1', isModerator: true });
});
afterAll(async () => {
  await h?.close();
});

async function submit(path: string, cookie?: string, key?: string): Promise<Site> {
  const r = request(h.app).post('/api/sites').set('X-Forwarded-For', nextIp());
  if (cookie) r.set('Cookie', cookie);
  if (key) r.set('Idempotency-Key', key);
  const res = await r.send({ url: `${h.website.origin}${path}` });
  expect([200, 201]).toContain(res.status);
  return res.body.site as Site;
}
const as = (cookie: string, r: request.Test) => r.set('Cookie', cookie).set('X-Forwarded-For', nextIp());
const exportOf = (userId: string, token: string | null = INTERNAL_TOKEN) => {
  const r = request(h.app).get(internalUserExportPath(userId));
  return token === null ? r : r.set('X-Internal-Token', token);
};

describe('GET /internal/users/{id}/export', () => {
  it("answers the user's rows of every table, and nothing of others", async () => {
    const own = await submit('/export-own', ann, 'ann-key-1');
    const seconded = await submit('/export-bobs', bob);
    await submit('/export-bobs', ann);
    const bobsOnly = await submit('/export-bob-only', bob);
    expect((await as(ann, request(h.app).post('/api/bookmarks')).send({ site_id: seconded.id })).status).toBe(201);
    expect((await as(bob, request(h.app).post('/api/bookmarks')).send({ site_id: own.id })).status).toBe(201);
    expect((await as(ann, request(h.app).post(`/api/sites/${bobsOnly.id}/boost`))).status).toBe(200);
    expect((await as(bob, request(h.app).post(`/api/sites/${own.id}/boost`))).status).toBe(200);
    // A claim by the meta tag: the fake website serves it for this site.
    h.website.setHandler((_req, res) =>
      res.end(`<html><head><meta name="svc-verify" content="${own.id}"></head></html>`),
    );
    expect((await as(ann, request(h.app).post(`/api/sites/${own.id}/claim`))).status).toBe(200);
    const hidden = await as(moderator, request(h.app).post(`/api/moderation/sites/${seconded.id}/hide`)).send({ reason: 'spam' });
    expect(hidden.status).toBe(200);
    expect((await as(moderator, request(h.app).post(`/api/moderation/sites/${bobsOnly.id}/hide`)).send({ reason: 'not hers' })).status).toBe(200);

    const res = await exportOf('ann-1');
    expect(res.status).toBe(200);
    const { data, moderation } = SitesExportPart.parse(res.body);
    const ref = (s: Site) => ({ id: s.id, url: s.url, title: s.title });
    expect(data.submissions.map((s) => [s.site.id, s.first])).toEqual([
      [own.id, true],
      [seconded.id, false],
    ]);
    expect(data.claims).toEqual([{ site: ref(own), claimed_at: expect.stringMatching(/Z$/) }]);
    expect(data.bookmarks).toEqual([{ site: expect.objectContaining({ id: seconded.id }), created_at: expect.stringMatching(/Z$/) }]);
    expect(data.boosts).toEqual([
      { id: expect.any(String), site: expect.objectContaining({ id: bobsOnly.id }), day: new Date().toISOString().slice(0, 10), created_at: expect.stringMatching(/Z$/) },
    ]);
    expect(data.idempotency_keys).toEqual([{ key: 'ann-key-1', created_at: expect.stringMatching(/Z$/) }]);
    expect(moderation.by_you).toEqual([]);
    expect(moderation.about_you.map((e) => [e.service, e.action, e.target_id, e.actor, e.reason])).toEqual([
      ['sites', 'site.hidden', seconded.id, 'moderator', 'spam'],
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/bob-1|mod-1|ip_hash|fingerprint/);

    const mod = SitesExportPart.parse((await exportOf('mod-1')).body);
    expect(mod.moderation.by_you.map((e) => [e.action, e.target_id])).toEqual([
      ['site.hidden', seconded.id],
      ['site.hidden', bobsOnly.id],
    ]);
  });

  it('answers an empty part for a user sites knows nothing about', async () => {
    const res = await exportOf('nobody-here');
    expect([res.status, res.body]).toEqual([
      200,
      {
        data: { submissions: [], claims: [], bookmarks: [], boosts: [], idempotency_keys: [] },
        moderation: { by_you: [], about_you: [] },
      },
    ]);
  });

  it('refuses callers without the right token with 403, a session included', async () => {
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await exportOf('ann-1', token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    expect((await request(h.app).get(internalUserExportPath('ann-1')).set('Cookie', ann)).status).toBe(403);
    expect((await exportOf('x'.repeat(129))).status).toBe(404);
  });
});
