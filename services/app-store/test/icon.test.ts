// App icons: the listing, installed apps and my apps carry the gradient and has_icon (never
// the SVG), and GET /api/v1/apps/{slug}/icon serves the SVG as an image with its headers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AppListResponse, InstalledAppsResponse, MyAppsResponse } from '@svc/types';
import { iconEtag, ifNoneMatchHits } from '../src/domain/icon-etag.js';
import { startHarness, type Harness, type TestUser } from './harness.js';

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="9" fill="#fff"/></svg>';
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

let h: Harness;
let dev: TestUser;
beforeAll(async () => {
  h = await startHarness();
  dev = h.user('icons');
  await h.seedApp(dev, {
    slug: 'with-icon',
    iconGradientFrom: '#112233',
    iconGradientTo: '#445566',
    iconSvg: SVG,
    downloads: 2,
  });
  await h.seedApp(dev, { slug: 'without-icon', iconGradientFrom: '#abcdef', downloads: 1 });
  await h.seedApp(dev, { slug: 'blocked-icon', status: 'blocked', iconSvg: SVG });
});
afterAll(() => h.close());

const icon = (slug: string) => request(h.app).get(`/api/v1/apps/${slug}/icon`);

describe('icon fields in lists', () => {
  it('the listing has the gradient and has_icon, and no SVG', async () => {
    const res = await request(h.app).get('/api/v1/apps');
    const { apps } = AppListResponse.parse(res.body);
    const bySlug = Object.fromEntries(apps.map((a) => [a.slug, a]));
    expect(bySlug['with-icon']).toMatchObject({
      icon_gradient_from: '#112233',
      icon_gradient_to: '#445566',
      has_icon: true,
    });
    expect(bySlug['without-icon']).toMatchObject({
      icon_gradient_from: '#abcdef',
      icon_gradient_to: null,
      has_icon: false,
    });
    expect(res.text).not.toContain('<svg');
    expect(res.body.apps[0]).not.toHaveProperty('icon_svg');
  });

  it('installed apps and my apps carry them too', async () => {
    const u = h.user('installer');
    for (const slug of ['without-icon', 'with-icon'])
      await request(h.app).put(`/api/v1/me/installed/${slug}`).set('Cookie', u.cookie).expect(200);
    const installed = await request(h.app).get('/api/v1/me/installed').set('Cookie', u.cookie);
    expect(InstalledAppsResponse.parse(installed.body).apps).toEqual([
      expect.objectContaining({ slug: 'with-icon', icon_gradient_from: '#112233', has_icon: true }),
      expect.objectContaining({ slug: 'without-icon', icon_gradient_to: null, has_icon: false }),
    ]);
    expect(installed.text).not.toContain('<svg');
    const mine = await request(h.app).get('/api/v1/me/apps').set('Cookie', dev.cookie);
    const flags = MyAppsResponse.parse(mine.body).apps.map((a) => [a.slug, a.has_icon]);
    expect(flags.sort()).toEqual([
      ['blocked-icon', true],
      ['with-icon', true],
      ['without-icon', false],
    ]);
  });
});

describe('GET /api/v1/apps/{slug}/icon', () => {
  it('answers the stored SVG as an image with a sandboxing CSP, nosniff, caching and an ETag', async () => {
    const res = await icon('with-icon').buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString('utf8')).toBe(SVG);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.etag).toBe(iconEtag(SVG));
  });

  it('answers 304 with no body when If-None-Match names the ETag, 200 when it does not', async () => {
    const etag = (await icon('with-icon')).headers.etag as string;
    const fresh = await icon('with-icon').set('If-None-Match', etag);
    expect(fresh.status).toBe(304);
    expect(fresh.text ?? '').toBe('');
    expect(fresh.headers.etag).toBe(etag);
    expect(fresh.headers['cache-control']).toBe('public, max-age=300');
    const weakInList = await icon('with-icon').set('If-None-Match', `"other", W/${etag}`);
    expect(weakInList.status).toBe(304);
    expect((await icon('with-icon').set('If-None-Match', '"stale"')).status).toBe(200);
  });

  it('changes its ETag when the icon changes', async () => {
    const before = (await icon('with-icon')).headers.etag as string;
    const other = SVG.replace('#fff', '#000');
    await h.db.app.update({ where: { slug: 'with-icon' }, data: { iconSvg: other } });
    try {
      const res = await icon('with-icon').set('If-None-Match', before);
      expect(res.status).toBe(200);
      expect(res.headers.etag).not.toBe(before);
    } finally {
      await h.db.app.update({ where: { slug: 'with-icon' }, data: { iconSvg: SVG } });
    }
  });

  it('is 404 JSON for an unknown slug, a blocked app and an app without an icon', async () => {
    for (const [slug, error] of [
      ['no-such-app', 'App not found'],
      ['blocked-icon', 'App not found'],
      ['without-icon', 'App has no icon'],
    ]) {
      const res = await icon(slug!);
      expect([slug, res.status, res.headers['content-type'], res.body]).toEqual([
        slug,
        404,
        expect.stringMatching(/^application\/json/),
        { error },
      ]);
    }
  });
});

describe('If-None-Match matching', () => {
  it('follows RFC 9110 (weak comparison, lists, *)', () => {
    const tag = '"abc"';
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
    expect(ifNoneMatchHits('"abc"', tag)).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', tag)).toBe(true);
    expect(ifNoneMatchHits('"x", "abc"', tag)).toBe(true);
    expect(ifNoneMatchHits('*', tag)).toBe(true);
    expect(ifNoneMatchHits('"abcd"', tag)).toBe(false);
  });
});
