// /api/v1/me*, installs, and the developer dashboard's API keys (docs/decisions/003-app-store-api-keys.md): creation
// shown once and stored hashed, listing, revocation, and what a key may and may not do.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  ApiKeyListResponse,
  AppStoreMeResponse,
  CreateApiKeyResponse,
  InstalledAppsResponse,
  MyAppsResponse,
} from '@svc/types';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 10 });
});
afterAll(() => h.close());

const get = (path: string, auth: TestUser | string) => {
  const r = request(h.app).get(path);
  return typeof auth === 'string'
    ? r.set('Authorization', `Bearer ${auth}`)
    : r.set('Cookie', auth.cookie);
};

describe('GET /api/v1/me', () => {
  it('maps the session user to id, display_name, email and a Gravatar avatar', async () => {
    const u = h.user('Émilie');
    const res = await get('/api/v1/me', u);
    expect(res.status).toBe(200);
    const hash = createHash('sha256').update(u.email.toLowerCase()).digest('hex');
    expect(AppStoreMeResponse.parse(res.body)).toEqual({
      user: {
        id: u.id,
        display_name: u.username,
        email: u.email,
        avatar_url: `https://www.gravatar.com/avatar/${hash}?d=identicon`,
      },
    });
    expect(res.headers['ratelimit-limit']).toBe('600');
  });

  it('answers 401 without a session, with a malformed Authorization header, or an unknown key', async () => {
    for (const headers of [
      {},
      { Authorization: 'Basic dXNlcjpwYXNz' },
      { Authorization: 'Bearer' },
      { Authorization: 'Bearer not-a-key' },
      { Authorization: `Bearer svc_live_${'x'.repeat(43)}` },
    ]) {
      const res = await request(h.app).get('/api/v1/me').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Authentication required' });
    }
  });
});

describe('my apps and installs', () => {
  it('GET /me/apps lists the caller’s apps in any status, newest first', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'mine-old', createdAt: new Date('2026-01-01T00:00:00Z') });
    await h.seedApp(dev, {
      slug: 'mine-blocked',
      status: 'blocked',
      createdAt: new Date('2026-02-01T00:00:00Z'),
    });
    await h.seedApp(dev, { slug: 'mine-new', createdAt: new Date('2026-03-01T00:00:00Z') });
    await h.seedApp(h.user(), { slug: 'not-mine' });
    const res = await get('/api/v1/me/apps', dev);
    expect(res.status).toBe(200);
    const body = MyAppsResponse.parse(res.body);
    expect(body.apps.map((a) => [a.slug, a.status])).toEqual([
      ['mine-new', 'approved'],
      ['mine-blocked', 'blocked'],
      ['mine-old', 'approved'],
    ]);
    expect((await get('/api/v1/me/apps', h.user())).body).toEqual({ apps: [] });
  });

  it('installs idempotently, counts one download per user, lists approved installs newest first', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'inst-a' });
    await h.seedApp(dev, { slug: 'inst-b' });
    await h.seedApp(dev, { slug: 'inst-blocked' });
    const u = h.user('installer');
    const put = (slug: string, who: TestUser = u) =>
      request(h.app).put(`/api/v1/me/installed/${slug}`).set('Cookie', who.cookie);
    const del = (slug: string) =>
      request(h.app).delete(`/api/v1/me/installed/${slug}`).set('Cookie', u.cookie);
    const downloads = async (slug: string) =>
      (await h.db.app.findUniqueOrThrow({ where: { slug } })).downloads;

    expect((await put('inst-a')).body).toEqual({ installed: true });
    await put('inst-a').expect(200);
    await Promise.all([put('inst-b'), put('inst-b'), put('inst-b')]);
    await put('inst-blocked').expect(200);
    expect(await downloads('inst-a')).toBe(1);
    expect(await downloads('inst-b')).toBe(1);
    await put('inst-a', h.user()).expect(200);
    expect(await downloads('inst-a')).toBe(2);

    await h.db.app.update({ where: { slug: 'inst-blocked' }, data: { status: 'blocked' } });
    const listed = InstalledAppsResponse.parse((await get('/api/v1/me/installed', u)).body);
    expect(listed.apps.map((a) => a.slug)).toEqual(['inst-b', 'inst-a']);
    expect(Object.keys(listed.apps[0]!)).toHaveLength(14);
    expect(listed.apps[0]).toMatchObject({
      icon_gradient_from: null,
      icon_gradient_to: null,
      has_icon: false,
    });

    // Uninstall is idempotent; re-installing is not a new download.
    expect((await del('inst-a')).status).toBe(204);
    expect((await del('inst-a')).status).toBe(204);
    expect((await del('never-installed')).status).toBe(204);
    expect(
      (await get('/api/v1/me/installed', u)).body.apps.map((a: { slug: string }) => a.slug),
    ).toEqual(['inst-b']);
    await put('inst-a').expect(200);
    expect(await downloads('inst-a')).toBe(2);
    expect(
      (await get('/api/v1/me/installed', u)).body.apps.map((a: { slug: string }) => a.slug),
    ).toEqual(['inst-a', 'inst-b']);
  });

  it('installing an unknown or blocked app is 404; without a session 401', async () => {
    const u = h.user();
    await h.seedApp(h.user(), { slug: 'inst-gone', status: 'blocked' });
    for (const slug of ['no-such-app', 'inst-gone']) {
      const res = await request(h.app).put(`/api/v1/me/installed/${slug}`).set('Cookie', u.cookie);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'App not found' });
    }
    expect((await request(h.app).put('/api/v1/me/installed/inst-gone')).status).toBe(401);
    expect((await request(h.app).get('/api/v1/me/installed')).status).toBe(401);
  });
});

describe('API keys', () => {
  let dev: TestUser;
  beforeAll(async () => {
    dev = h.user('keydev');
    await h
      .submit(dev, { slug: 'key-home', name: 'Home', url: 'https://home.example.com' })
      .expect(201);
    await h
      .submit(dev, { slug: 'key-other', name: 'Other', url: 'https://other.example.com' })
      .expect(201);
  });

  it('creates a key shown once, stored only as its SHA-256, listed without the secret', async () => {
    const res = await request(h.app).post('/api/v1/apps/key-home/keys').set('Cookie', dev.cookie);
    expect(res.status).toBe(201);
    const created = CreateApiKeyResponse.parse(res.body);
    expect(created.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const row = await h.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.keyHash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const list = await get('/api/v1/apps/key-home/keys', dev);
    expect(list.status).toBe(200);
    const keys = ApiKeyListResponse.parse(list.body).keys;
    expect(keys).toEqual([
      {
        id: created.id,
        prefix: created.prefix,
        created_at: created.created_at,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect(list.text).not.toContain(created.key);
  });

  it('authenticates as the app author for /me, /me/apps, /me/installed, own PATCH and submissions', async () => {
    const { key, id } = await h.createKey(dev, 'key-home');
    const me = await get('/api/v1/me', key);
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      id: dev.id,
      display_name: dev.username,
      email: dev.email,
    });
    expect(
      (await get('/api/v1/me/apps', key)).body.apps.map((a: { slug: string }) => a.slug).sort(),
    ).toEqual(['key-home', 'key-other']);
    expect((await get('/api/v1/me/installed', key)).status).toBe(200);

    const patched = await request(h.app)
      .patch('/api/v1/apps/key-home')
      .set('Authorization', `Bearer ${key}`)
      .send({ description: 'set by key' });
    expect(patched.status).toBe(200);
    expect(patched.body.app.description).toBe('set by key');

    const submitted = await request(h.app)
      .post('/api/v1/apps')
      .set('Authorization', `Bearer ${key}`)
      .send({ slug: 'key-submitted', name: 'By key', url: 'https://bykey.example.com' });
    expect(submitted.status).toBe(201);
    expect(await h.db.app.findUniqueOrThrow({ where: { slug: 'key-submitted' } })).toMatchObject({
      authorId: dev.id,
      authorName: dev.username,
    });

    // last_used_at is kept (written at most once a minute).
    const used = await h.db.apiKey.findUniqueOrThrow({ where: { id } });
    expect(used.lastUsedAt).toBeInstanceOf(Date);
    await get('/api/v1/me', key).expect(200);
    expect((await h.db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(
      used.lastUsedAt,
    );
    const listed = (await get('/api/v1/apps/key-home/keys', dev)).body.keys.find(
      (k: { id: string }) => k.id === id,
    );
    expect(listed.last_used_at).toBe(used.lastUsedAt!.toISOString());
  });

  it('is refused on another app of the same author (403) and on session-only endpoints', async () => {
    const { key } = await h.createKey(dev, 'key-home');
    const other = await request(h.app)
      .patch('/api/v1/apps/key-other')
      .set('Authorization', `Bearer ${key}`)
      .send({ name: 'x' });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'API key is not valid for this app' });
    const foreign = await h.seedApp(h.user(), { slug: 'key-foreign' });
    const foreignRes = await request(h.app)
      .patch(`/api/v1/apps/${foreign.slug}`)
      .set('Authorization', `Bearer ${key}`)
      .send({ name: 'x' });
    expect(foreignRes.status).toBe(403);
    expect(foreignRes.body).toEqual({ error: 'API key is not valid for this app' });

    const bearer = { Authorization: `Bearer ${key}` };
    for (const [method, path] of [
      ['post', '/api/v1/apps/key-home/keys'],
      ['get', '/api/v1/apps/key-home/keys'],
      ['delete', '/api/v1/apps/key-home/keys/some-id'],
      ['put', '/api/v1/me/installed/key-home'],
      ['delete', '/api/v1/me/installed/key-home'],
      ['post', '/api/v1/apps/key-foreign/report'],
    ] as const) {
      const res = await request(h.app)[method](path).set(bearer).send({});
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.body.error).toMatch(/session cookie/);
    }
  });

  it('a revoked key answers 401 at once; revoking is author-only and idempotent', async () => {
    const { key, id } = await h.createKey(dev, 'key-home');
    await get('/api/v1/me', key).expect(200);
    const stranger = await request(h.app)
      .delete(`/api/v1/apps/key-home/keys/${id}`)
      .set('Cookie', h.user().cookie);
    expect(stranger.status).toBe(403);
    await get('/api/v1/me', key).expect(200);

    const res = await request(h.app)
      .delete(`/api/v1/apps/key-home/keys/${id}`)
      .set('Cookie', dev.cookie);
    expect(res.status).toBe(204);
    const after = await get('/api/v1/me', key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Authentication required' });
    expect(
      (await request(h.app).delete(`/api/v1/apps/key-home/keys/${id}`).set('Cookie', dev.cookie))
        .status,
    ).toBe(204);
    const listed = (await get('/api/v1/apps/key-home/keys', dev)).body.keys.find(
      (k: { id: string }) => k.id === id,
    );
    expect(listed.revoked_at).toEqual(expect.any(String));
    // A key of another app cannot be revoked through this one.
    const otherKey = await h.createKey(dev, 'key-other');
    expect(
      (
        await request(h.app)
          .delete(`/api/v1/apps/key-home/keys/${otherKey.id}`)
          .set('Cookie', dev.cookie)
      ).status,
    ).toBe(404);
    await get('/api/v1/me', otherKey.key).expect(200);
  });

  it('key management: 403 for a non-author, 404 for an unknown app, 401 without a session', async () => {
    const stranger = h.user();
    for (const req of [
      request(h.app).post('/api/v1/apps/key-home/keys'),
      request(h.app).get('/api/v1/apps/key-home/keys'),
    ]) {
      const res = await req.set('Cookie', stranger.cookie);
      expect(res.status).toBe(403);
    }
    expect(
      (await request(h.app).post('/api/v1/apps/nope-app/keys').set('Cookie', dev.cookie)).status,
    ).toBe(404);
    expect(
      (await request(h.app).delete('/api/v1/apps/key-home/keys/unknown').set('Cookie', dev.cookie))
        .status,
    ).toBe(404);
    expect((await request(h.app).post('/api/v1/apps/key-home/keys')).status).toBe(401);
  });
});
