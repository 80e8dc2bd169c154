// Moderation of sites on the real app, PostgreSQL and Redis: a moderator hides a
// site and it leaves the listing, search, tag filter, sitemap and GET /api/sites/{id} for
// everyone else (a moderator still reads it, `hidden: true`); boost, claim and click answer
// 404; restore brings it all back. Caches of this process are cleared on hide and restore.
// 401/403 for non-moderators, 404 unknown id, 409 already hidden / not hidden.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MODERATORS_ONLY, type Site } from '@svc/types';
import { buildApp } from '../src/app.js';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
let app: ReturnType<typeof buildApp>;
let n = 0;
let moderator: string;
let user: string;

beforeAll(async () => {
  h = await startHarness();
  // Long caches: the hide must clear them in this process, or the tests below would fail.
  app = buildApp({ ...h.deps, listCacheMs: 600_000, countCacheMs: 600_000 });
  moderator = h.sessionCookie({ id: 'mod-1', isModerator: true });
  user = h.sessionCookie({ id: 'user-1' });
});
afterAll(async () => {
  await h?.close();
});

async function newSite(tag = '工具'): Promise<Site> {
  const word = `zebraword${n}`;
  const res = await request(app)
    .post('/api/sites')
    .set('X-Forwarded-For', nextIp())
    .send({ url: `${h.website.origin}/mod-${n++}` });
  expect(res.status).toBe(201);
  const id = (res.body.site as Site).id;
  await h.db.site.update({ where: { id }, data: { tags: [tag], title: word } });
  app = buildApp({ ...h.deps, listCacheMs: 600_000, countCacheMs: 600_000 });
  return { ...(res.body.site as Site), title: word };
}

const ids = (res: request.Response) => (res.body.sites as Site[]).map((s) => s.id);

async function visibility(site: Site, cookie?: string) {
  const withCookie = (r: request.Test) => (cookie ? r.set('Cookie', cookie) : r);
  const list = await withCookie(request(app).get('/api/sites?sort=recent'));
  const search = await withCookie(request(app).get(`/api/sites?search=${site.title}`));
  const tag = await withCookie(
    request(app).get(`/api/sites?tag=${encodeURIComponent('工具')}&sort=recent`),
  );
  const sitemap = await request(app).get('/sitemap.xml');
  const get = await withCookie(request(app).get(`/api/sites/${site.id}`));
  return {
    list: ids(list).includes(site.id),
    search: ids(search).includes(site.id),
    searchTotal: search.body.total as number,
    tag: ids(tag).includes(site.id),
    sitemap: sitemap.text.includes(`/site/${site.id}`),
    get: get.status,
    getBody: get.body,
  };
}

const hide = (id: string, cookie: string | undefined, body: unknown = { reason: 'spam' }) => {
  const r = request(app).post(`/api/moderation/sites/${id}/hide`);
  return (cookie ? r.set('Cookie', cookie) : r).send(body as object);
};
const restore = (id: string, cookie: string | undefined) => {
  const r = request(app).post(`/api/moderation/sites/${id}/restore`);
  return cookie ? r.set('Cookie', cookie) : r;
};

describe('moderation of sites', () => {
  it('hide removes a site from list, search, tag, sitemap and GET for others, not for moderators; restore brings it back', async () => {
    const site = await newSite();
    const before = await visibility(site);
    expect(before).toMatchObject({
      list: true,
      search: true,
      searchTotal: 1,
      tag: true,
      sitemap: true,
      get: 200,
    });
    expect(before.getBody.site.hidden).toBeUndefined();

    const res = await hide(site.id, moderator, { reason: '  spam links  ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      site_id: site.id,
      hidden: true,
      hidden_at: expect.stringMatching(/Z$/),
      hidden_reason: 'spam links',
    });
    const row = await h.db.site.findUniqueOrThrow({ where: { id: site.id } });
    expect(row.hiddenReason).toBe('spam links');

    for (const cookie of [undefined, user]) {
      const after = await visibility(site, cookie);
      expect(after).toMatchObject({
        list: false,
        search: false,
        searchTotal: 0,
        tag: false,
        sitemap: false,
        get: 404,
      });
      expect(after.getBody).toEqual({ error: 'Site not found' });
    }
    const asModerator = await request(app).get(`/api/sites/${site.id}`).set('Cookie', moderator);
    expect(asModerator.status).toBe(200);
    expect(asModerator.body.site).toMatchObject({ id: site.id, hidden: true });

    // boost, claim and click on a hidden site: 404
    expect(
      (await request(app).post(`/api/sites/${site.id}/boost`).set('X-Forwarded-For', nextIp()))
        .status,
    ).toBe(404);
    expect(
      (await request(app).post(`/api/sites/${site.id}/claim`).set('X-Forwarded-For', nextIp()))
        .status,
    ).toBe(404);
    expect(
      (await request(app).post(`/api/clicks/${site.id}`).set('X-Forwarded-For', nextIp())).status,
    ).toBe(404);
    expect(
      (await request(app).post('/api/bookmarks').set('Cookie', user).send({ site_id: site.id }))
        .status,
    ).toBe(404);

    expect((await restore(site.id, moderator)).body).toEqual({ site_id: site.id, hidden: false });
    const back = await visibility(site);
    expect(back).toMatchObject({
      list: true,
      search: true,
      searchTotal: 1,
      tag: true,
      sitemap: true,
      get: 200,
    });
    expect(back.getBody.site.hidden).toBeUndefined();
    expect(
      (await request(app).post(`/api/clicks/${site.id}`).set('X-Forwarded-For', nextIp())).status,
    ).toBe(200);
    const restored = await h.db.site.findUniqueOrThrow({ where: { id: site.id } });
    expect([restored.hiddenAt, restored.hiddenReason]).toEqual([null, null]);
  });

  it('409 when already hidden or not hidden; 404 for an unknown or over-long id; 400 without a reason', async () => {
    const site = await newSite();
    expect((await restore(site.id, moderator)).status).toBe(409);
    expect((await restore(site.id, moderator)).body).toEqual({ error: 'Site is not hidden' });
    expect((await hide(site.id, moderator, {})).status).toBe(400);
    expect((await hide(site.id, moderator, { reason: '   ' })).status).toBe(400);
    expect((await hide(site.id, moderator, { reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await hide(site.id, moderator)).status).toBe(200);
    const again = await hide(site.id, moderator);
    expect([again.status, again.body]).toEqual([409, { error: 'Site already hidden' }]);
    for (const id of ['no-such-site', 'a'.repeat(129)]) {
      expect([(await hide(id, moderator)).status, (await hide(id, moderator)).body]).toEqual([
        404,
        { error: 'Site not found' },
      ]);
      expect((await restore(id, moderator)).status).toBe(404);
    }
  });

  it('two hides at once: exactly one 200, the other 409', async () => {
    const site = await newSite();
    const answers = await Promise.all([hide(site.id, moderator), hide(site.id, moderator)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('401 without a session, 403 Moderators only for anyone else, nothing changed', async () => {
    const site = await newSite();
    for (const call of [(c?: string) => hide(site.id, c), (c?: string) => restore(site.id, c)]) {
      const anon = await call(undefined);
      expect([anon.status, anon.body]).toEqual([401, { error: 'Authentication required' }]);
      const other = await call(user);
      expect([other.status, other.body]).toEqual([403, { error: MODERATORS_ONLY }]);
    }
    expect((await request(app).get(`/api/sites/${site.id}`)).status).toBe(200);
  });
});
