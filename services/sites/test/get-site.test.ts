// GET /api/sites/{id} on the real app, PostgreSQL and Redis: the listing's Site object for
// one id, claimed or not, the same for every caller; 404 for an unknown or over-long id,
// 400 only for a NUL; the literal /api/sites/… paths are not shadowed by {id}.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ERROR_MESSAGES, Site } from '@svc/types';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
let n = 0;
beforeAll(async () => {
  h = await startHarness();
  h.website.setHandler((req, res) => {
    const id = new URL(req.url!, 'http://x').searchParams.get('verify') ?? '';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><html><head><title>Mine</title><meta name="svc-verify" content="${id}"></head><body>hi</body></html>`,
    );
  });
});
afterAll(async () => {
  await h?.close();
});

async function newSite(): Promise<Site> {
  const res = await request(h.app)
    .post('/api/sites')
    .set('X-Forwarded-For', nextIp())
    .send({ url: `${h.website.origin}/get-site-${n++}` });
  expect(res.status).toBe(201);
  return res.body.site as Site;
}

/** The site as GET /api/sites (recent first) shows it. */
async function fromListing(id: string): Promise<Site | undefined> {
  const res = await request(h.app).get('/api/sites?sort=recent');
  expect(res.status).toBe(200);
  return (res.body.sites as Site[]).find((s) => s.id === id);
}

const getSite = (id: string, cookie?: string) => {
  const req = request(h.app).get(`/api/sites/${id}`);
  return cookie ? req.set('Cookie', cookie) : req;
};

describe('GET /api/sites/{id}', () => {
  it('answers 200 { site } with exactly the object the listing shows, is_claimed false', async () => {
    const site = await newSite();
    const res = await getSite(site.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['site']);
    expect(Site.strict().parse(res.body.site)).toEqual(res.body.site);
    expect(res.body.site).toEqual(await fromListing(site.id));
    expect(res.body.site).toMatchObject({ id: site.id, url: site.url, is_claimed: false });
  });

  it('shows a claimed site as claimed, as the listing does', async () => {
    const site = await newSite();
    await h.db.site.update({
      where: { id: site.id },
      data: { url: `${h.website.origin}/claim?verify=${site.id}` },
    });
    const claim = await request(h.app)
      .post(`/api/sites/${site.id}/claim`)
      .set('X-Forwarded-For', nextIp())
      .set('Cookie', h.sessionCookie({ id: 'get-site-owner' }));
    expect(claim.status).toBe(200);
    const res = await getSite(site.id);
    expect(res.status).toBe(200);
    expect(res.body.site.is_claimed).toBe(true);
    expect(res.body.site).toEqual(claim.body.site);
    expect(res.body.site).toEqual(await fromListing(site.id));
  });

  it('gives a logged-in viewer the same answer as a visitor (the Site has no viewer fields)', async () => {
    const site = await newSite();
    const visitor = await getSite(site.id);
    const viewer = await getSite(site.id, h.sessionCookie({ id: 'get-site-viewer' }));
    expect(viewer.status).toBe(200);
    expect(viewer.body).toEqual(visitor.body);
    // A bad session cookie is ignored, as on the other public endpoints.
    const stale = await getSite(site.id, 'sn_token=not-a-jwt');
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(visitor.body);
  });

  it('shows current counters (a boost and a click are visible at once)', async () => {
    const site = await newSite();
    const ip = nextIp();
    expect(
      (await request(h.app).post(`/api/sites/${site.id}/boost`).set('X-Forwarded-For', ip)).status,
    ).toBe(200);
    expect(
      (await request(h.app).post(`/api/clicks/${site.id}`).set('X-Forwarded-For', ip)).status,
    ).toBe(200);
    const res = await getSite(site.id);
    expect(res.body.site).toMatchObject({ boost_count: 1, click_count: 1 });
    expect(res.body.site.hot_score).toBeGreaterThan(site.hot_score);
  });

  it('answers 404 { error: "Site not found" } for an unknown id', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAA', 'no-such-site', encodeURIComponent('ü ✓')]) {
      const res = await getSite(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Site not found' });
    }
  });

  it('answers 404 for an id the schema refuses (over 128 characters): it names no site', async () => {
    const res = await getSite('a'.repeat(129));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Site not found' });
    expect((await getSite('a'.repeat(128))).status).toBe(404);
  });

  it('answers 400 for a NUL character in the id', async () => {
    const res = await getSite(encodeURIComponent('a\u0000b'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: ERROR_MESSAGES.nulCharacter });
  });

  it('leaves /api/sites/tags and /api/sites/my-submissions to their own routes', async () => {
    const tags = await request(h.app).get('/api/sites/tags');
    expect(tags.status).toBe(200);
    expect(tags.body.tags).toHaveLength(11);
    expect((await request(h.app).get('/api/sites/my-submissions')).status).toBe(401);
    expect((await request(h.app).get('/api/sites/x/y')).status).toBe(404);
  });

  it('answers 405 with Allow: GET, HEAD for another method on /api/sites/{id}', async () => {
    const site = await newSite();
    const res = await request(h.app).delete(`/api/sites/${site.id}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});
