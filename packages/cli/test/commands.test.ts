// The built binary against a loopback fake of the API: --json output, tables, credentials,
// exit 1 on API errors, the idempotent manifest, login's session file, chat tail.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { run, sampleApp, startFakeApi, tempHome, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const KEY = 'svc_live_abcdef123456';
const env = (extra: Record<string, string> = {}) => ({ SVC_BASE_URL: api.url, ...extra });

const listing = {
  apps: [
    sampleApp(),
    sampleApp({ id: 'app_2', slug: 'chess', name: '国际象棋 Chess', downloads: 1234 }),
  ],
  meta: { limit: 50, offset: 0, count: 2, total: 2, total_exact: true, has_more: false },
};

describe('apps list', () => {
  it('--json prints the API answer as parseable JSON', async () => {
    api.on('GET /api/v1/apps', { json: listing });
    const res = await run(['apps', 'list', '--json', '--category', 'developer', '-q', 'ci'], {
      env: env(),
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(listing);
    const url = new URL(api.requests[0]!.url, api.url);
    expect(url.searchParams.get('category')).toBe('developer');
    expect(url.searchParams.get('q')).toBe('ci');
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('prints a table for people', async () => {
    api.on('GET /api/v1/apps', { json: listing });
    const res = await run(['apps', 'list'], { env: env() });
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+CATEGORY\s+TYPE\s+STATUS\s+DOWNLOADS\s+AUTHOR\s+URL$/);
    expect(lines[1]).toMatch(
      /^ci-app\s+CI App\s+developer\s+web\s+approved\s+0\s+dev\s+https:\/\/ci-app.test$/,
    );
    expect(lines[2]).toMatch(/^chess\s+国际象棋 Chess\s+developer/);
    // Columns line up although the second name has wide characters.
    expect(lines[1]!.indexOf('developer')).toBe(lines[2]!.indexOf('developer') + 4);
    expect(lines.at(-1)).toBe('1-2 of 2');
  });

  it('--mine sends SVC_API_KEY as a bearer token', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [sampleApp()] } });
    const res = await run(['apps', 'list', '--mine', '--json'], { env: env({ SVC_API_KEY: KEY }) });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).apps[0].slug).toBe('ci-app');
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('plain HTTP', () => {
  it('warns when credentials would travel unencrypted to another machine', async () => {
    // 0.0.0.0 is not a loopback name, yet Linux delivers it to this machine's fake API.
    api.on('GET /api/v1/me/apps', { json: { apps: [] } });
    const res = await run(['apps', 'list', '--mine'], {
      env: { SVC_BASE_URL: api.url.replace('127.0.0.1', '0.0.0.0'), SVC_API_KEY: KEY },
    });
    expect(res.stderr).toMatch(
      /^warning: credentials go over plain HTTP to http:\/\/0\.0\.0\.0:\d+; use https:\/\//,
    );
    expect(res.code).toBe(0);
  });

  it('stays quiet for this machine and for public calls', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [] } });
    const local = await run(['apps', 'list', '--mine'], { env: env({ SVC_API_KEY: KEY }) });
    expect(local.stderr).toBe('');
  });
});

describe('API errors exit 1 with the message on stderr', () => {
  it('a refused key', async () => {
    api.on('GET /api/v1/me/apps', { status: 401, json: { error: 'Authentication required' } });
    const res = await run(['apps', 'list', '--mine', '--json'], {
      env: env({ SVC_API_KEY: 'svc_live_wrong' }),
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^svc: Authentication required \(set SVC_API_KEY, or run `svc login`\) \[HTTP 401, request req-test\]/,
    );
  });

  it('a 404 with the API message', async () => {
    api.on('GET /api/v1/apps/nope', { status: 404, json: { error: 'App not found' } });
    const res = await run(['apps', 'get', 'nope'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/App not found \[HTTP 404/);
  });

  it('a 429 says when to retry', async () => {
    api.on('POST /api/translate', {
      status: 429,
      json: { error: 'Too many requests' },
      headers: { 'retry-after': '42' },
    });
    const res = await run(['translate', 'hello', '--to', 'fr'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Too many requests \(retry in 42 s\)/);
  });

  it('an API that cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const res = await run(['apps', 'list'], { env: { SVC_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/cannot reach the API: .*ECONNREFUSED/);
  });
});

describe('apps submit --from (idempotent)', () => {
  const manifestFile = (content: object) => {
    const file = path.join(tempHome(), 'app.json');
    writeFileSync(file, JSON.stringify(content));
    return file;
  };
  const manifest = {
    slug: 'ci-app',
    name: 'CI App',
    url: 'https://ci-app.test',
    description: 'Built in CI',
    category: 'developer',
  };

  it('creates the app when the caller has none with that slug', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [] } });
    api.on('POST /api/v1/apps', {
      status: 201,
      json: { id: 'app_9', slug: 'ci-app', status: 'approved' },
    });
    const res = await run(['apps', 'submit', '--from', manifestFile(manifest), '--json'], {
      env: env({ SVC_API_KEY: KEY }),
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      action: 'created',
      id: 'app_9',
      slug: 'ci-app',
      status: 'approved',
      changed: [],
      ignored: [],
    });
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/me/apps',
      'POST /api/v1/apps',
    ]);
    expect(JSON.parse(api.requests[1]!.body)).toEqual({
      ...manifest,
      app_type: 'web',
      open_mode: 'iframe',
    });
    expect(api.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('sends nothing when the app already matches', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [sampleApp()] } });
    const res = await run(['apps', 'submit', '--from', manifestFile(manifest), '--json'], {
      env: env({ SVC_API_KEY: KEY }),
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      action: 'unchanged',
      id: 'app_1',
      slug: 'ci-app',
    });
    expect(api.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('patches only the fields that differ, and warns about fields the API cannot change', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [sampleApp()] } });
    api.on('PATCH /api/v1/apps/ci-app', (req) => ({
      json: {
        app: {
          ...sampleApp(JSON.parse(req.body)),
          created_at: '2026-11-22T00:00:00.000Z',
          updated_at: '2026-11-22T00:00:00.000Z',
          report_count: 0,
        },
      },
    }));
    const file = manifestFile({
      ...manifest,
      url: 'https://moved.test',
      description: 'New text',
      tech_tags: ['ts', 'ci'],
    });
    const res = await run(['apps', 'submit', '--from', file, '--json'], {
      env: env({ SVC_API_KEY: KEY }),
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      action: 'updated',
      id: 'app_1',
      slug: 'ci-app',
      status: 'approved',
      changed: ['description', 'tech_tags'],
      ignored: ['url'],
    });
    expect(JSON.parse(api.requests[1]!.body)).toEqual({
      description: 'New text',
      tech_tags: ['ts', 'ci'],
    });
    expect(res.stderr).toMatch(
      /warning: url differs from the submitted app \(https:\/\/ci-app.test\)/,
    );
  });

  it('says the app was created when setting its PATCH-only fields then fails', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [] } });
    api.on('POST /api/v1/apps', {
      status: 201,
      json: { id: 'app_9', slug: 'ci-app', status: 'approved' },
    });
    api.on('PATCH /api/v1/apps/ci-app', {
      status: 403,
      json: { error: 'API key is not valid for this app' },
    });
    const res = await run(
      ['apps', 'submit', '--from', manifestFile({ ...manifest, tech_tags: ['x'] })],
      {
        env: env({ SVC_API_KEY: KEY }),
      },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^created ci-app \(id app_9\) but setting tech_tags failed:\nsvc: API key is not valid for this app/,
    );
    expect(JSON.parse(api.requests[2]!.body)).toEqual({ tech_tags: ['x'] });
  });

  it('exits 1 when the slug belongs to someone else', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [] } });
    api.on('POST /api/v1/apps', { status: 409, json: { error: 'Slug already taken' } });
    const res = await run(['apps', 'submit', '--from', manifestFile(manifest)], {
      env: env({ SVC_API_KEY: KEY }),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Slug already taken \[HTTP 409/);
  });

  it('reads the manifest from stdin with --from -', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [sampleApp()] } });
    const res = await run(['apps', 'submit', '--from', '-'], {
      env: env({ SVC_API_KEY: KEY }),
      input: JSON.stringify(manifest),
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('unchanged ci-app (id app_1, approved)\n');
  });
});

describe('keys', () => {
  it('create shows the secret once, with what to do with it', async () => {
    api.on('POST /api/v1/apps/ci-app/keys', {
      status: 201,
      json: {
        id: 'key_1',
        key: KEY,
        prefix: 'svc_live_abcd',
        created_at: '2026-11-22T00:00:00.000Z',
      },
    });
    const res = await run(['apps', 'keys', 'create', 'ci-app'], { env: env() });
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe(KEY);
    expect(res.stdout).toMatch(/only time the key is shown/);
  });

  it('revoke answers JSON for scripts', async () => {
    api.on('DELETE /api/v1/apps/ci-app/keys/key_1', { status: 204 });
    const res = await run(['--json', 'apps', 'keys', 'revoke', 'ci-app', 'key_1'], { env: env() });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ revoked: true, id: 'key_1' });
  });
});

const site = (over: Record<string, unknown> = {}) => ({
  id: 's1',
  url: 'https://example.com/page',
  title: 'Example',
  description: '',
  favicon_url: null,
  og_image_url: null,
  domain: 'example.com',
  tags: ['工具'],
  submit_count: 1,
  click_count: 0,
  hot_score: 1.5,
  site_type: 'website',
  social_platform: null,
  social_username: null,
  boost_count: 0,
  is_claimed: false,
  is_promoted: false,
  first_submitted_at: '2026-11-22T00:00:00.000Z',
  last_activity_at: '2026-11-22T00:00:00.000Z',
  ...over,
});

describe('sites', () => {
  it('get finds a site by its URL through the search, across pages', async () => {
    api.on('GET /api/sites', (req) => {
      const page = Number(new URL(req.url, api.url).searchParams.get('page'));
      return page === 1
        ? {
            json: {
              sites: [site({ id: 's0', url: 'https://example.com/other' })],
              total: 2,
              total_exact: true,
              page: 1,
              hasMore: true,
              next_cursor: 'c1',
            },
          }
        : { json: { sites: [site()], total: 2, total_exact: true, page: 2, hasMore: false, next_cursor: null } };
    });
    const res = await run(['sites', 'get', 'HTTPS://Example.com/page#top', '--json'], {
      env: env(),
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).site.id).toBe('s1');
    const first = new URL(api.requests[0]!.url, api.url);
    expect(first.searchParams.get('search')).toBe('example.com');
  });

  it('get <id> asks GET /api/sites/{id} and prints the site, claim status included', async () => {
    api.on('GET /api/sites/s1', { json: { site: site({ is_claimed: true }) } });
    const json = await run(['sites', 'get', 's1', '--json'], { env: env() });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ site: site({ is_claimed: true }) });
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/sites/s1']);
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
    expect(api.requests[0]!.headers.cookie).toBeUndefined();

    const text = await run(['sites', 'get', 's1'], { env: env() });
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id:\s+s1$/);
    expect(lines).toContainEqual(expect.stringMatching(/^is_claimed:\s+true$/));
    expect(lines).toContainEqual(expect.stringMatching(/^tags:\s+工具$/));
  });

  it('get <id> of an unknown site exits 1 with the API message', async () => {
    api.on('GET /api/sites/AAAAAAAAAAAAAAAAAAAAA', {
      status: 404,
      json: { error: 'Site not found' },
    });
    const res = await run(['sites', 'get', 'AAAAAAAAAAAAAAAAAAAAA'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/Site not found \[HTTP 404/);
  });

  it('get exits 1 when no site has that URL', async () => {
    api.on('GET /api/sites', { json: { sites: [], total: 0, total_exact: true, page: 1, hasMore: false, next_cursor: null } });
    const res = await run(['sites', 'get', 'https://nowhere.test'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no site with the URL https:\/\/nowhere.test/);
  });

  it('boost reports the credits left', async () => {
    api.on('POST /api/sites/s1/boost', { json: { site: site({ boost_count: 1 }), credits: 0 } });
    const res = await run(['sites', 'boost', 's1'], { env: env() });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('boosted s1 (1 boosts); 0 boosts left today\n');
  });
});

describe('translate', () => {
  it('reads the text from stdin and prints only the translation', async () => {
    api.on('POST /api/translate', (req) => ({
      json: { translated: `[fr] ${JSON.parse(req.body).text}`, detectedLang: 'en' },
    }));
    const res = await run(['translate', '--to', 'fr'], { env: env(), input: 'good morning\n' });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('[fr] good morning\n');
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ text: 'good morning', targetLang: 'fr' });
  });
});

describe('login, whoami, logout', () => {
  it('stores the session in $XDG_CONFIG_HOME/svc with mode 0600 and uses it for this origin only', async () => {
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    api.on('POST /api/auth/verify', {
      json: { user: { id: 'u1', email: 'dev@example.com', username: 'dev' } },
      headers: { 'set-cookie': 'sn_token=jwt.token.sig; HttpOnly; Path=/; SameSite=Lax' },
    });
    api.on('GET /api/v1/me', {
      json: {
        user: { id: 'u1', display_name: 'dev', email: 'dev@example.com', avatar_url: 'https://a' },
      },
    });
    api.on('POST /api/auth/logout', { json: { success: true } });
    const home = tempHome();

    const login = run(['login'], { env: env(), home });
    login.child.stdin!.write('Dev@Example.com\n');
    // The code is typed once it has been "received".
    await new Promise<void>((resolve) => {
      const check = () =>
        api.requests.some((r) => r.path === '/api/auth/send-code')
          ? resolve()
          : setTimeout(check, 20);
      check();
    });
    login.child.stdin!.end('123456\n');
    const res = await login;
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/Email: A 6-digit code was sent to dev@example.com\. Code: /);
    expect(res.stdout).toMatch(/logged in to http:\/\/127.0.0.1:\d+ as dev/);
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ email: 'dev@example.com' });
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ email: 'dev@example.com', code: '123456' });

    const file = path.join(home, '.config', 'svc', 'session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.sessions[api.url].token).toBe('jwt.token.sig');

    const me = await run(['whoami', '--json'], { env: env(), home });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ user: { id: 'u1' }, via: 'session' });
    expect(api.requests.at(-1)!.headers.cookie).toBe('sn_token=jwt.token.sig');

    // Another origin never gets this session.
    const other = await run(['whoami'], {
      env: { SVC_BASE_URL: api.url.replace('127.0.0.1', 'localhost') },
      home,
    });
    expect(api.requests.at(-1)!.headers.cookie).toBeUndefined();
    expect(other.code).toBe(0);

    const out = await run(['logout'], { env: env(), home });
    expect(out.code).toBe(0);
    expect(api.requests.at(-1)!.path).toBe('/api/auth/logout');
    expect(api.requests.at(-1)!.headers.cookie).toBe('sn_token=jwt.token.sig');
    expect(() => statSync(file)).toThrow();
  });

  it('a code that is not 6 digits is a usage error', async () => {
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    const res = await run(['login', '--email', 'dev@example.com'], { env: env(), input: 'abc\n' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Code must be 6 digits/);
  });

  it('a wrong code exits 1 with the API message', async () => {
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    api.on('POST /api/auth/verify', { status: 400, json: { error: 'Invalid or expired code' } });
    const res = await run(['login', '--email', 'dev@example.com'], {
      env: env(),
      input: '000000\n',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Invalid or expired code/);
  });

  it('logout --all without a stored session exits 1 and asks nothing of the API (an API key cannot)', async () => {
    const res = await run(['logout', '--all'], { env: env({ SVC_API_KEY: 'svc_live_key' }) });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/not logged in/);
    expect(api.requests).toEqual([]);
  });
});

const message = (id: string, content: string) => ({
  id,
  type: 'chat',
  content,
  content_key: null,
  content_params: null,
  sender_name: 'Visitor from Paris',
  sender_location: 'FR|Paris',
  like_count: 0,
  created_at: '2026-11-22T01:02:03.000Z',
});

describe('chat', () => {
  it('send prints the stored message', async () => {
    api.on('POST /api/messages', { status: 201, json: { message: message('m1', 'hello there') } });
    const res = await run(['chat', 'send', 'hello', 'there'], { env: env() });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('[01:02:03] Visitor from Paris: hello there\n');
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ content: 'hello there' });
  });

  it('tail prints history, then live messages over the WebSocket, and reconnects after 1012', async () => {
    api.on('GET /api/messages', { json: { messages: [message('m1', 'earlier')] } });
    const first = api.nextSocket();
    const tail = run(['chat', 'tail', '--json', '--count', '2', '--history', '5'], { env: env() });
    const s1 = await first;
    await new Promise<void>((resolve) => {
      const check = () =>
        api.requests.some((r) => r.path === '/api/messages') ? resolve() : setTimeout(check, 20);
      check();
    });
    await new Promise((r) => setTimeout(r, 100));
    s1.send(JSON.stringify({ event: 'new_message', payload: message('m2', 'live one') }));
    s1.send(
      JSON.stringify({ event: 'like', payload: { messageId: 'm2', fromUser: 'a', toUser: 'b' } }),
    );
    const second = api.nextSocket();
    s1.close(1012, 'service restart');
    const s2 = await second;
    s2.send(JSON.stringify({ event: 'new_message', payload: message('m3', 'after restart') }));
    const res = await tail;
    expect(res.code).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.payload.content)).toEqual(['earlier', 'live one', 'after restart']);
    expect(new URL(api.requests[0]!.url, api.url).searchParams.get('limit')).toBe('5');
    expect(res.stderr).toMatch(/connection closed \(1012\); reconnecting in \d+ ms/);
  });

  it('tail resumes after a restart from the last event id, and after a resync prints only the unseen messages', async () => {
    api.on('GET /api/messages', { json: { messages: [message('m1', 'earlier')] } });
    const first = api.nextSocket();
    const tail = run(['chat', 'tail', '--json', '--count', '3', '--history', '5'], { env: env() });
    const s1 = await first;
    await new Promise<void>((resolve) => {
      const check = () =>
        api.requests.some((r) => r.path === '/api/messages') ? resolve() : setTimeout(check, 20);
      check();
    });
    await new Promise((r) => setTimeout(r, 100));
    s1.send(
      JSON.stringify({ id: '7-0', event: 'new_message', payload: message('m2', 'live one') }),
    );
    s1.send(
      JSON.stringify({
        id: '7-1',
        event: 'like',
        payload: { messageId: 'm2', fromUser: 'a', toUser: 'b' },
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const second = api.nextSocket();
    s1.close(1012, 'service restart');
    const s2 = await second;
    // The history moved on meanwhile: m3 was missed, m1 and m2 were printed already.
    api.on('GET /api/messages', {
      json: {
        messages: [message('m1', 'earlier'), message('m2', 'live one'), message('m3', 'missed')],
      },
    });
    s2.send(JSON.stringify({ event: 'resync', payload: { reason: 'history_expired' } }));
    await new Promise((r) => setTimeout(r, 200));
    s2.send(JSON.stringify({ id: '9-0', event: 'new_message', payload: message('m4', 'after') }));
    const res = await tail;
    expect(res.code).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.payload.content)).toEqual(['earlier', 'live one', 'missed', 'after']);
    expect(res.stderr).toMatch(/re-reading recent messages/);
    // The reconnection asked for the events after the last one seen (the like, 7-1).
    expect(api.socketUrls.slice(-2)).toEqual(['/api/ws', '/api/ws?last_event_id=7-1']);
  });
});
