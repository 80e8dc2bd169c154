// POST /api/v1/apps and PATCH /api/v1/apps/{slug}: validation of every field, slug
// conflicts (also racing), authorship, sanitised icons.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AppDetailResponse } from '@svc/types';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
beforeAll(async () => {
  // Validation tests submit far more than 5 apps per user.
  h = await startHarness({ rateLimitScale: 100 });
});
afterAll(() => h.close());

const valid = (slug: string) => ({ slug, name: 'My App', url: 'https://my-app.example.com' });

describe('POST /api/v1/apps', () => {
  it('creates an approved app with the documented defaults', async () => {
    const dev = h.user('maker');
    const res = await h.submit(dev, valid('my-app'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), slug: 'my-app', status: 'approved' });
    const detail = AppDetailResponse.parse((await request(h.app).get('/api/v1/apps/my-app')).body);
    expect(detail.app).toMatchObject({
      id: res.body.id,
      name: 'My App',
      url: 'https://my-app.example.com',
      description: '',
      category: 'tools',
      app_type: 'web',
      open_mode: 'iframe',
      status: 'approved',
      downloads: 0,
      report_count: 0,
      author_name: dev.username,
      chain: null,
      tech_tags: [],
    });
  });

  it('stores every optional field given', async () => {
    const dev = h.user();
    const res = await h.submit(dev, {
      ...valid('full-app'),
      description: 'Does things',
      category: 'defi',
      app_type: 'dapp',
      open_mode: 'external',
      chain: 'ethereum',
    });
    expect(res.status).toBe(201);
    const row = await h.db.app.findUniqueOrThrow({ where: { slug: 'full-app' } });
    expect(row).toMatchObject({
      description: 'Does things',
      category: 'defi',
      appType: 'dapp',
      openMode: 'external',
      chain: 'ethereum',
      authorId: dev.id,
    });
  });

  it('answers 409 "Slug already taken" for a taken slug', async () => {
    await h.submit(h.user(), valid('taken-slug')).expect(201);
    const res = await h.submit(h.user(), { ...valid('taken-slug'), name: 'Other' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Slug already taken' });
  });

  it('lets exactly one of two simultaneous submits of a slug win (10 rounds)', async () => {
    for (let i = 0; i < 10; i++) {
      const slug = `race-slug-${i}`;
      const [a, b] = await Promise.all([
        h.submit(h.user(), valid(slug)),
        h.submit(h.user(), valid(slug)),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      expect(await h.db.app.count({ where: { slug } })).toBe(1);
    }
  });

  it('answers 401 without authentication', async () => {
    const res = await request(h.app).post('/api/v1/apps').send(valid('anon-app'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Authentication required' });
  });

  it('answers 401 for a forged or expired session', async () => {
    const forged = await request(h.app)
      .post('/api/v1/apps')
      .set('Cookie', 'sn_token=abc.def.ghi')
      .send(valid('forged-app'));
    expect(forged.status).toBe(401);
  });

  const u = 'https://ok.example.com';
  it.each([
    ['missing slug', { name: 'A', url: u }],
    ['missing name', { slug: 'abc', url: u }],
    ['missing url', { slug: 'abc', name: 'A' }],
    ['slug too short', { slug: 'ab', name: 'A', url: u }],
    ['slug too long', { slug: 'a'.repeat(65), name: 'A', url: u }],
    ['slug upper case', { slug: 'MyApp', name: 'A', url: u }],
    ['slug underscore', { slug: 'my_app', name: 'A', url: u }],
    ['slug double hyphen', { slug: 'my--app', name: 'A', url: u }],
    ['slug leading hyphen', { slug: '-myapp', name: 'A', url: u }],
    ['slug trailing hyphen', { slug: 'myapp-', name: 'A', url: u }],
    ['slug not a string', { slug: 123, name: 'A', url: u }],
    ['empty name', { slug: 'abc', name: '', url: u }],
    ['blank name', { slug: 'abc', name: '   ', url: u }],
    ['name too long', { slug: 'abc', name: 'n'.repeat(81), url: u }],
    ['http url', { slug: 'abc', name: 'A', url: 'http://ok.example.com' }],
    ['javascript url', { slug: 'abc', name: 'A', url: 'javascript:alert(1)' }],
    ['not a url', { slug: 'abc', name: 'A', url: 'example.com' }],
    ['https without slashes', { slug: 'abc', name: 'A', url: 'https:example.com' }],
    ['url too long', { slug: 'abc', name: 'A', url: `https://example.com/${'p'.repeat(2030)}` }],
    ['description too long', { slug: 'abc', name: 'A', url: u, description: 'd'.repeat(2001) }],
    ['unknown category', { slug: 'abc', name: 'A', url: u, category: 'weather' }],
    ['unknown app_type', { slug: 'abc', name: 'A', url: u, app_type: 'native' }],
    ['unknown open_mode', { slug: 'abc', name: 'A', url: u, open_mode: 'popup' }],
    ['chain too long', { slug: 'abc', name: 'A', url: u, chain: 'c'.repeat(65) }],
    ['array body', [1, 2]],
  ])('answers 400 for %s', async (_label, body) => {
    const res = await request(h.app)
      .post('/api/v1/apps')
      .set('Cookie', h.user().cookie)
      .send(body as object);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
    expect(await h.db.app.count({ where: { slug: 'abc' } })).toBe(0);
  });

  it('accepts the limits exactly', async () => {
    const res = await h.submit(h.user(), {
      slug: `a${'b'.repeat(62)}c`,
      name: 'n'.repeat(80),
      url: `https://example.com/${'p'.repeat(2048 - 20)}`,
      description: 'd'.repeat(2000),
      chain: 'c'.repeat(64),
    });
    expect(res.status).toBe(201);
  });

  it('answers 400 for malformed JSON and 413 for a body over 64 KiB', async () => {
    const bad = await request(h.app)
      .post('/api/v1/apps')
      .set('Cookie', h.user().cookie)
      .set('Content-Type', 'application/json')
      .send('{"slug":');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Invalid JSON body' });
    const big = await h.submit(h.user(), { ...valid('big-app'), description: 'd'.repeat(70_000) });
    expect(big.status).toBe(413);
  });
});

describe('PATCH /api/v1/apps/{slug}', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = h.user('owner');
    await h.submit(owner, valid('patch-me')).expect(201);
  });
  const patch = (u: TestUser, slug: string, body: unknown) =>
    request(h.app)
      .patch(`/api/v1/apps/${slug}`)
      .set('Cookie', u.cookie)
      .send(body as object);

  it('updates every updatable field and answers the full detail', async () => {
    const res = await patch(owner, 'patch-me', {
      name: 'Patched',
      description: 'New text',
      icon_gradient_from: '#ff0000',
      icon_gradient_to: '#00FF00',
      icon_svg: '<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>',
      tech_tags: ['React', 'react', 'TypeScript'],
      category: 'productivity',
      chain: 'solana',
      svc_sdk_version: '2.1.0-beta.1',
    });
    expect(res.status).toBe(200);
    const { app } = AppDetailResponse.parse(res.body);
    expect(app).toMatchObject({
      slug: 'patch-me',
      name: 'Patched',
      description: 'New text',
      icon_gradient_from: '#ff0000',
      icon_gradient_to: '#00FF00',
      tech_tags: ['React', 'TypeScript'],
      category: 'productivity',
      chain: 'solana',
      svc_sdk_version: '2.1.0-beta.1',
      url: 'https://my-app.example.com',
    });
    // Stored byte for byte: no namespace added, `<circle/>` not rewritten.
    expect(app.icon_svg).toBe('<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>');
    const stored = await h.db.app.findUnique({ where: { slug: 'patch-me' } });
    expect(stored!.iconSvg).toBe('<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>');
    expect(Date.parse(app.updated_at)).toBeGreaterThanOrEqual(Date.parse(app.created_at));
    // The search follows the new name and tags.
    const found = await request(h.app).get('/api/v1/apps').query({ q: 'typescript patched' });
    expect(found.body.apps.map((a: { slug: string }) => a.slug)).toEqual(['patch-me']);
  });

  it('clears nullable fields with null', async () => {
    const res = await patch(owner, 'patch-me', {
      chain: null,
      icon_svg: null,
      svc_sdk_version: null,
      icon_gradient_from: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.app).toMatchObject({
      chain: null,
      icon_svg: null,
      svc_sdk_version: null,
      icon_gradient_from: null,
    });
  });

  it.each([
    ['a script', '<svg viewBox="0 0 24 24"><script>alert(2)</script></svg>', /<script> elements/],
    ['an event handler', '<svg viewBox="0 0 24 24"><circle r="5" onclick="alert(4)"/></svg>', /event handler attribute onclick/],
    ['an external reference', '<svg><use href="https://evil.example/sprite.svg#icon"/></svg>', /external reference in href on <use>/],
    ['an external url()', '<svg><rect fill="url(https://evil.example/x)"/></svg>', /external reference in fill on <rect>/],
    ['a javascript: link', '<svg><a href="javascript:alert(3)"><rect/></a></svg>', /external reference in href on <a>/],
  ])('refuses icon_svg with %s (400 naming it) and keeps the stored icon', async (_label, icon_svg, problem) => {
    const before = await h.db.app.findUnique({ where: { slug: 'patch-me' } });
    const res = await patch(owner, 'patch-me', { icon_svg });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^icon_svg is unsafe: /);
    expect(res.body.error).toMatch(problem);
    const after = await h.db.app.findUnique({ where: { slug: 'patch-me' } });
    expect(after!.iconSvg).toBe(before!.iconSvg);
  });

  it.each([
    ['not svg at all', 'hello'],
    ['html instead of svg', '<div>hi</div>'],
    ['only a script', '<script>alert(1)</script>'],
    ['two roots', '<svg></svg><svg></svg>'],
  ])('answers 400 when icon_svg is %s', async (_label, icon_svg) => {
    const res = await patch(owner, 'patch-me', { icon_svg });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/icon_svg/);
  });

  it.each([
    ['unknown field', { colour: 'red' }],
    ['non-updatable slug', { slug: 'new-slug' }],
    ['non-updatable url', { url: 'https://other.example.com' }],
    ['non-updatable status', { status: 'approved' }],
    ['name too long', { name: 'n'.repeat(81) }],
    ['empty name', { name: '' }],
    ['description too long', { description: 'd'.repeat(2001) }],
    ['colour not #rrggbb', { icon_gradient_from: 'red' }],
    ['colour short form', { icon_gradient_to: '#fff' }],
    ['icon over 20 KB', { icon_svg: `<svg>${' '.repeat(20 * 1024)}</svg>` }],
    ['icon not a string', { icon_svg: 42 }],
    ['too many tags', { tech_tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }],
    ['tag too long', { tech_tags: ['t'.repeat(33)] }],
    ['empty tag', { tech_tags: [''] }],
    ['tags not an array', { tech_tags: 'react' }],
    ['unknown category', { category: 'weather' }],
    ['chain too long', { chain: 'c'.repeat(65) }],
    ['not semver', { svc_sdk_version: '1.2' }],
    ['semver with v', { svc_sdk_version: 'v1.2.3' }],
    ['null name', { name: null }],
  ])('answers 400 for %s', async (_label, body) => {
    const before = await h.db.app.findUniqueOrThrow({ where: { slug: 'patch-me' } });
    const res = await patch(owner, 'patch-me', body);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
    expect(await h.db.app.findUniqueOrThrow({ where: { slug: 'patch-me' } })).toEqual(before);
  });

  it('answers 403 to someone who is not the author, 401 to nobody, 404 for an unknown slug', async () => {
    const other = await patch(h.user('intruder'), 'patch-me', { name: 'Hijacked' });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'Only the author of the app can update it' });
    const anon = await request(h.app).patch('/api/v1/apps/patch-me').send({ name: 'x' });
    expect(anon.status).toBe(401);
    const unknown = await patch(owner, 'no-such-app', { name: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'App not found' });
    expect((await h.db.app.findUniqueOrThrow({ where: { slug: 'patch-me' } })).name).not.toBe(
      'Hijacked',
    );
  });

  it('lets the author patch a blocked app (it stays blocked); 404 for everyone else', async () => {
    const app = await h.seedApp(owner, { slug: 'blocked-one', status: 'blocked', reportCount: 5 });
    const mine = await patch(owner, 'blocked-one', { description: 'fixed' });
    expect(mine.status).toBe(200);
    expect(mine.body.app).toMatchObject({ status: 'blocked', description: 'fixed' });
    const theirs = await patch(h.user(), 'blocked-one', { description: 'x' });
    expect(theirs.status).toBe(404);
    expect((await request(h.app).get('/api/v1/apps/blocked-one')).status).toBe(404);
    expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).status).toBe('blocked');
  });

  it('accepts an empty body and changes nothing', async () => {
    const before = (await request(h.app).get('/api/v1/apps/patch-me')).body.app;
    const res = await patch(owner, 'patch-me', {});
    expect(res.status).toBe(200);
    expect({ ...res.body.app, updated_at: null }).toEqual({ ...before, updated_at: null });
  });
});
