// The client against a loopback HTTP server: credentials, paths and queries, error mapping.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENDPOINTS, type Endpoint } from '@svc/types';
import { ApiError, NetworkError, SvcClient, SvcError, iconUrl } from '../src/index.js';
import { startFakeApi, type FakeApi } from './fake-api.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const KEY = 'svc_live_testkey123';
const TOKEN = 'header.payload.signature';

describe('credentials', () => {
  // Every call of the client, with the catalogue path it must hit.
  const calls: Array<[string, string, string, (c: SvcClient) => Promise<unknown>]> = [
    ['GET', '/api/v1/apps', '/api/v1/apps', (c) => c.apps.list()],
    [
      'POST',
      '/api/v1/apps',
      '/api/v1/apps',
      (c) => c.apps.submit({ slug: 'abc', name: 'A', url: 'https://a.test' }),
    ],
    ['GET', '/api/v1/apps/{slug}', '/api/v1/apps/abc', (c) => c.apps.get('abc')],
    [
      'PATCH',
      '/api/v1/apps/{slug}',
      '/api/v1/apps/abc',
      (c) => c.apps.update('abc', { name: 'B' }),
    ],
    ['DELETE', '/api/v1/apps/{slug}', '/api/v1/apps/abc', (c) => c.apps.withdraw('abc')],
    ['POST', '/api/v1/apps/{slug}/report', '/api/v1/apps/abc/report', (c) => c.apps.report('abc')],
    ['GET', '/api/v1/apps/{slug}/keys', '/api/v1/apps/abc/keys', (c) => c.apps.keys.list('abc')],
    ['POST', '/api/v1/apps/{slug}/keys', '/api/v1/apps/abc/keys', (c) => c.apps.keys.create('abc')],
    [
      'DELETE',
      '/api/v1/apps/{slug}/keys/{id}',
      '/api/v1/apps/abc/keys/k1',
      (c) => c.apps.keys.revoke('abc', 'k1'),
    ],
    ['GET', '/api/v1/categories', '/api/v1/categories', (c) => c.apps.categories()],
    ['GET', '/api/v1/me', '/api/v1/me', (c) => c.me.get()],
    ['GET', '/api/v1/me/apps', '/api/v1/me/apps', (c) => c.me.apps()],
    [
      'POST',
      '/api/v1/me/apps/{slug}/appeal',
      '/api/v1/me/apps/abc/appeal',
      (c) => c.me.appeal('abc', 'please look again'),
    ],
    [
      'GET',
      '/api/v1/me/apps/{slug}/audit',
      '/api/v1/me/apps/abc/audit',
      (c) => c.me.appAudit('abc', { limit: 5 }),
    ],
    ['GET', '/api/v1/me/installed', '/api/v1/me/installed', (c) => c.me.installed()],
    ['PUT', '/api/v1/me/installed/{slug}', '/api/v1/me/installed/abc', (c) => c.me.install('abc')],
    [
      'GET',
      '/api/v1/moderation/reports',
      '/api/v1/moderation/reports',
      (c) => c.appModeration.queue(),
    ],
    [
      'GET',
      '/api/v1/moderation/apps/{slug}/reports',
      '/api/v1/moderation/apps/abc/reports',
      (c) => c.appModeration.reports('abc'),
    ],
    [
      'POST',
      '/api/v1/moderation/apps/{slug}/restore',
      '/api/v1/moderation/apps/abc/restore',
      (c) => c.appModeration.restore('abc', 'false reports'),
    ],
    [
      'POST',
      '/api/v1/moderation/apps/{slug}/block',
      '/api/v1/moderation/apps/abc/block',
      (c) => c.appModeration.block('abc', 'phishing'),
    ],
    [
      'POST',
      '/api/v1/moderation/apps/{slug}/dismiss',
      '/api/v1/moderation/apps/abc/dismiss',
      (c) => c.appModeration.dismiss('abc'),
    ],
    ['GET', '/api/v1/moderation/audit', '/api/v1/moderation/audit', (c) => c.appModeration.audit()],
    [
      'DELETE',
      '/api/v1/me/installed/{slug}',
      '/api/v1/me/installed/abc',
      (c) => c.me.uninstall('abc'),
    ],
    ['POST', '/api/auth/send-code', '/api/auth/send-code', (c) => c.auth.sendCode('a@b.test')],
    ['POST', '/api/auth/verify', '/api/auth/verify', (c) => c.auth.verify('a@b.test', '123456')],
    ['GET', '/api/auth/me', '/api/auth/me', (c) => c.auth.me()],
    ['GET', '/api/auth/export', '/api/auth/export', (c) => c.auth.exportData()],
    [
      'POST',
      '/api/auth/set-username',
      '/api/auth/set-username',
      (c) => c.auth.setUsername('new_name'),
    ],
    ['POST', '/api/auth/logout', '/api/auth/logout', (c) => c.auth.logout()],
    ['POST', '/api/auth/logout-all', '/api/auth/logout-all', (c) => c.auth.logoutAll()],
    ['DELETE', '/api/auth/me', '/api/auth/me', (c) => c.auth.deleteAccount('123456')],
    ['GET', '/api/auth/moderators', '/api/auth/moderators', (c) => c.auth.moderators()],
    [
      'PUT',
      '/api/auth/moderators/{email}',
      '/api/auth/moderators/m%40b.test',
      (c) => c.auth.grantModerator('m@b.test'),
    ],
    [
      'DELETE',
      '/api/auth/moderators/{email}',
      '/api/auth/moderators/m%40b.test',
      (c) => c.auth.revokeModerator('m@b.test'),
    ],
    ['GET', '/api/sites', '/api/sites', (c) => c.sites.list()],
    ['POST', '/api/sites', '/api/sites', (c) => c.sites.submit({ url: 'https://x.test' })],
    ['GET', '/api/sites/tags', '/api/sites/tags', (c) => c.sites.tags()],
    ['GET', '/api/sites/{id}', '/api/sites/s1', (c) => c.sites.get('s1')],
    [
      'GET',
      '/api/sites/my-submissions',
      '/api/sites/my-submissions',
      (c) => c.sites.mySubmissions(),
    ],
    ['POST', '/api/sites/{id}/boost', '/api/sites/s1/boost', (c) => c.sites.boost('s1')],
    ['POST', '/api/sites/{id}/claim', '/api/sites/s1/claim', (c) => c.sites.claim('s1')],
    ['POST', '/api/clicks/{id}', '/api/clicks/s1', (c) => c.sites.click('s1')],
    ['GET', '/api/bookmarks', '/api/bookmarks', (c) => c.bookmarks.list()],
    ['POST', '/api/bookmarks', '/api/bookmarks', (c) => c.bookmarks.add('s1')],
    ['DELETE', '/api/bookmarks/{site_id}', '/api/bookmarks/s1', (c) => c.bookmarks.remove('s1')],
    ['GET', '/api/messages', '/api/messages', (c) => c.chat.list()],
    ['POST', '/api/messages', '/api/messages', (c) => c.chat.send('hi')],
    ['POST', '/api/messages/{id}/like', '/api/messages/m1/like', (c) => c.chat.like('m1')],
    [
      'POST',
      '/api/moderation/sites/{id}/hide',
      '/api/moderation/sites/s1/hide',
      (c) => c.moderation.hideSite('s1', 'spam'),
    ],
    [
      'POST',
      '/api/moderation/sites/{id}/restore',
      '/api/moderation/sites/s1/restore',
      (c) => c.moderation.restoreSite('s1'),
    ],
    [
      'DELETE',
      '/api/moderation/messages/{id}',
      '/api/moderation/messages/m1',
      (c) => c.moderation.deleteMessage('m1'),
    ],
    [
      'POST',
      '/api/moderation/chat/mutes',
      '/api/moderation/chat/mutes',
      (c) => c.moderation.muteSender('m1', 5),
    ],
    [
      'GET',
      '/api/moderation/sites/audit',
      '/api/moderation/sites/audit',
      (c) => c.moderation.siteAudit(),
    ],
    [
      'GET',
      '/api/moderation/chat/audit',
      '/api/moderation/chat/audit',
      (c) => c.moderation.chatAudit(),
    ],
    [
      'POST',
      '/api/translate',
      '/api/translate',
      (c) => c.translate({ text: 'hi', targetLang: 'fr' }),
    ],
    ['GET', '/api/daily-bg', '/api/daily-bg', (c) => c.dailyBackground()],
  ];

  it.each(calls)(
    '%s %s sends the credential its catalogue auth mode accepts',
    async (method, template, path, run) => {
      const entry = ENDPOINTS.find((e: Endpoint) => e.method === method && e.path === template);
      expect(entry).toBeDefined();
      const client = new SvcClient({ baseUrl: api.url, apiKey: KEY, sessionToken: TOKEN });
      await run(client);
      const req = api.last();
      expect(req.method).toBe(method);
      expect(req.path).toBe(path);
      const cookie = req.headers.cookie;
      const bearer = req.headers.authorization;
      switch (entry!.auth) {
        case 'none':
          expect([cookie, bearer]).toEqual([undefined, undefined]);
          break;
        case 'session':
        case 'optional-session':
          expect([cookie, bearer]).toEqual([`sn_token=${TOKEN}`, undefined]);
          break;
        case 'session-or-key':
          expect([cookie, bearer]).toEqual([undefined, `Bearer ${KEY}`]);
          break;
      }
    },
  );

  it('covers every JSON endpoint of the catalogue except the discovery files and the socket', () => {
    const covered = new Set(calls.map(([m, t]) => `${m} ${t}`));
    const missing = ENDPOINTS.filter(
      (e: Endpoint) =>
        !covered.has(`${e.method} ${e.path}`) &&
        ![
          '/api/ws',
          '/openapi.json',
          '/llms.txt',
          '/llms-full.txt',
          '/sitemap.xml',
          '/sitemap-{n}.xml',
          '/api/daily-bg/image',
          // An image for <img src>: iconUrl builds its path (tested below).
          '/api/v1/apps/{slug}/icon',
        ].includes(e.path) &&
        !e.path.startsWith('/.well-known/'),
    ).map((e: Endpoint) => `${e.method} ${e.path}`);
    expect(missing).toEqual([]);
  });

  it('uses the session for key-capable endpoints when there is no key', async () => {
    await new SvcClient({ baseUrl: api.url, sessionToken: TOKEN }).me.apps();
    expect(api.last().headers.cookie).toBe(`sn_token=${TOKEN}`);
    expect(api.last().headers.authorization).toBeUndefined();
  });

  it('sends the key to a session-only endpoint when there is no session, so the API can say why not', async () => {
    await new SvcClient({ baseUrl: api.url, apiKey: KEY }).apps.keys.create('abc');
    expect(api.last().headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('never sends an API key to the site-sharing endpoints', async () => {
    await new SvcClient({ baseUrl: api.url, apiKey: KEY }).chat.send('hi');
    expect(api.last().headers.authorization).toBeUndefined();
  });

  it('keeps the session from verify and sends it afterwards; logout forgets it', async () => {
    api.on('POST /api/auth/verify', {
      json: { user: { id: 'u1', email: 'a@b.test', username: 'a' } },
      headers: {
        'set-cookie': [
          'other=1; Path=/',
          'sn_token=tok.en.value; HttpOnly; Path=/; Max-Age=2592000',
        ],
      },
    });
    const client = new SvcClient({ baseUrl: api.url });
    const out = await client.auth.verify('a@b.test', '123456');
    expect(out).toEqual({
      user: { id: 'u1', email: 'a@b.test', username: 'a' },
      sessionToken: 'tok.en.value',
    });
    expect(client.sessionToken).toBe('tok.en.value');
    await client.me.get();
    expect(api.last().headers.cookie).toBe('sn_token=tok.en.value');
    await client.auth.logout();
    expect(api.last().headers.cookie).toBe('sn_token=tok.en.value');
    expect(client.sessionToken).toBeUndefined();
    await client.me.get();
    expect(api.last().headers.cookie).toBeUndefined();
  });

  it('logoutAll sends the session and forgets it', async () => {
    const client = new SvcClient({ baseUrl: api.url, sessionToken: 'tok.en.value', apiKey: KEY });
    await client.auth.logoutAll();
    expect(api.last().path).toBe('/api/auth/logout-all');
    expect(api.last().headers.cookie).toBe('sn_token=tok.en.value');
    expect(api.last().headers.authorization).toBeUndefined();
    expect(client.sessionToken).toBeUndefined();
  });

  it('deleteAccount sends the code with the session and forgets it', async () => {
    const client = new SvcClient({ baseUrl: api.url, sessionToken: 'tok.en.value' });
    await client.auth.deleteAccount('654321');
    expect(api.last()).toMatchObject({ method: 'DELETE', path: '/api/auth/me' });
    expect(JSON.parse(api.last().body)).toEqual({ code: '654321' });
    expect(api.last().headers.cookie).toBe('sn_token=tok.en.value');
    expect(client.sessionToken).toBeUndefined();
  });

  it('sends JSON bodies with a content type and extra headers on every request', async () => {
    const client = new SvcClient({
      baseUrl: `${api.url}/`,
      headers: { 'user-agent': 'svc-test/1' },
    });
    await client.translate({ text: 'bonjour', targetLang: 'en' });
    const req = api.last();
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('svc-test/1');
    expect(JSON.parse(req.body)).toEqual({ text: 'bonjour', targetLang: 'en' });
    expect(req.path).toBe('/api/translate');
  });
});

describe('paths and queries', () => {
  const client = () => new SvcClient({ baseUrl: api.url });

  it('leaves unset values out and encodes the rest', async () => {
    await client().apps.list({ category: 'games', q: 'chess & go', limit: 10, offset: undefined });
    expect(api.last().url).toBe('/api/v1/apps?category=games&q=chess+%26+go&limit=10');
    await client().apps.list();
    expect(api.last().url).toBe('/api/v1/apps');
  });

  it('encodes non-Latin values', async () => {
    await client().sites.list({ tag: '工具', sort: 'recent', page: 2 });
    const url = new URL(api.last().url, 'http://x');
    expect(url.searchParams.get('tag')).toBe('工具');
    expect(url.searchParams.get('sort')).toBe('recent');
    expect(url.searchParams.get('page')).toBe('2');
  });

  it('passes a listing cursor as it was given', async () => {
    await client().sites.list({ sort: 'recent', cursor: 'WyJyZWNlbnQiLCIyMDI2Il0_-' });
    const url = new URL(api.last().url, 'http://x');
    expect(url.searchParams.get('cursor')).toBe('WyJyZWNlbnQiLCIyMDI2Il0_-');
    expect(url.searchParams.has('page')).toBe(false);
  });

  it('asks for a deletion for good only when told to', async () => {
    await client().apps.withdraw('abc');
    expect([api.last().method, api.last().url]).toEqual(['DELETE', '/api/v1/apps/abc']);
    await client().apps.withdraw('abc', { permanent: true });
    expect(api.last().url).toBe('/api/v1/apps/abc?permanent=true');
    await client().apps.withdraw('abc', { permanent: false });
    expect(api.last().url).toBe('/api/v1/apps/abc');
  });

  it('encodes path segments so a slug cannot change the path', async () => {
    await client().apps.get('../me');
    expect(api.last().url).toBe('/api/v1/apps/..%2Fme');
    await client().apps.keys.revoke('a b', 'x/y');
    expect(api.last().url).toBe('/api/v1/apps/a%20b/keys/x%2Fy');
  });

  it('builds the icon path of an app (an image URL, encoded like every slug)', () => {
    const icon = ENDPOINTS.find((e: Endpoint) => e.operationId === 'getAppIcon');
    expect(icon?.path).toBe('/api/v1/apps/{slug}/icon');
    expect(iconUrl('chess-club')).toBe('/api/v1/apps/chess-club/icon');
    expect(iconUrl('../me')).toBe('/api/v1/apps/..%2Fme/icon');
    expect(iconUrl('a b?c#d')).toBe('/api/v1/apps/a%20b%3Fc%23d/icon');
  });

  it('encodes a site id so it cannot reach another /api/sites path', async () => {
    await client().sites.get('../tags');
    expect(api.last().url).toBe('/api/sites/..%2Ftags');
    await client().sites.get('a b?c');
    expect(api.last().url).toBe('/api/sites/a%20b%3Fc');
  });

  it('keeps a base path prefix', async () => {
    await new SvcClient({ baseUrl: `${api.url}/prefix/` }).apps.categories();
    expect(api.last().url).toBe('/prefix/api/v1/categories');
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new SvcClient({ baseUrl: 'ftp://x.test' })).toThrow(/http/);
    expect(() => new SvcClient({ baseUrl: 'not a url' })).toThrow(/not a URL/);
  });
});

describe('errors', () => {
  const client = () => new SvcClient({ baseUrl: api.url, timeoutMs: 500 });

  it('turns an error answer into ApiError with status, message, details and request id', async () => {
    api.on('POST /api/v1/apps', {
      status: 400,
      json: { error: 'Invalid request', details: [{ path: ['slug'], message: 'Too small' }] },
      headers: { 'x-request-id': 'req-42' },
    });
    const err = await client()
      .apps.submit({ slug: 'x', name: 'n', url: 'https://a.test' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(SvcError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    expect(e.message).toBe('Invalid request');
    expect(e.details).toEqual([{ path: ['slug'], message: 'Too small' }]);
    expect(e.requestId).toBe('req-42');
    expect(e.extra.method).toBe('POST');
    expect(e.extra.path).toBe('/api/v1/apps');
  });

  it('returns one site by id, and a 404 for an unknown one as ApiError', async () => {
    const site = { id: 's1', url: 'https://a.test/', is_claimed: true };
    api.on('GET /api/sites/s1', { json: { site } });
    expect(await client().sites.get('s1')).toEqual({ site });
    api.on('GET /api/sites/nope', { status: 404, json: { error: 'Site not found' } });
    const e = (await client()
      .sites.get('nope')
      .catch((err: unknown) => err)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(404);
    expect(e.message).toBe('Site not found');
  });

  it('reads Retry-After of a 429', async () => {
    api.on('POST /api/messages', {
      status: 429,
      json: { error: 'Too many requests' },
      headers: { 'retry-after': '17' },
    });
    const e = (await client()
      .chat.send('x')
      .catch((x: unknown) => x)) as ApiError;
    expect([e.status, e.message, e.retryAfter]).toEqual([429, 'Too many requests', 17]);
  });

  it('describes an error answer that is not JSON (a proxy page)', async () => {
    api.on('GET /api/v1/apps', {
      status: 502,
      raw: '<html>Bad gateway</html>',
      headers: { 'content-type': 'text/html' },
    });
    const e = (await client()
      .apps.list()
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/^GET \/api\/v1\/apps failed with HTTP 502/);
    expect(e.extra.body).toBe('<html>Bad gateway</html>');
  });

  it('refuses a success answer that is not JSON', async () => {
    api.on('GET /api/v1/apps', {
      status: 200,
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    const e = (await client()
      .apps.list()
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.message).toMatch(/not JSON/);
  });

  it('answers undefined for 204', async () => {
    api.on('DELETE /api/v1/apps/abc/keys/k1', { status: 204 });
    await expect(client().apps.keys.revoke('abc', 'k1')).resolves.toBeUndefined();
  });

  it('gives NetworkError when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = (await new SvcClient({ baseUrl: `http://127.0.0.1:${port}` }).apps
      .list()
      .catch((x: unknown) => x)) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).not.toBeInstanceOf(ApiError);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(e.timedOut).toBe(false);
  });

  it('gives NetworkError with timedOut when the answer is too slow', async () => {
    api.on('GET /api/v1/apps', { delayMs: 1500, json: { apps: [] } });
    const e = (await new SvcClient({ baseUrl: api.url, timeoutMs: 100 }).apps
      .list()
      .catch((x: unknown) => x)) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.timedOut).toBe(true);
    expect(e.message).toMatch(/no answer within 100 ms/);
  });

  it("hands the caller's own abort back unchanged", async () => {
    api.on('GET /api/v1/apps', { delayMs: 1000, json: { apps: [] } });
    const controller = new AbortController();
    const pending = new SvcClient({ baseUrl: api.url }).apps.list({}, controller.signal);
    setTimeout(() => controller.abort(new Error('stop it')), 50);
    await expect(pending).rejects.toThrow('stop it');
  });
});
