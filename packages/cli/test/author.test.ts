// The author's side of moderation in svc, the built binary against a
// loopback fake of the API: the block of each blocked app under `apps list --mine`,
// `apps appeal` (session, body, usage errors that send nothing, a 409 that exits 1),
// `apps audit`, and withdrawing an app (`apps withdraw`, what `--mine` and `submit --from`
// say of a withdrawn app).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, sampleApp, startFakeApi, tempHome, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const TOKEN = 'author.jwt.sig';
function loggedIn(): string {
  const home = tempHome();
  const dir = path.join(home, '.config', 'svc');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(
    path.join(dir, 'session.json'),
    JSON.stringify({ version: 1, sessions: { [api.url]: { token: TOKEN } } }),
    { mode: 0o600 },
  );
  return home;
}
const svc = (args: string[]) => run(args, { env: { SVC_BASE_URL: api.url }, home: loggedIn() });
const last = () => api.requests.at(-1)!;

describe('svc apps: the author of a blocked app', () => {
  it('list --mine shows when, by whom and why each blocked app was blocked, and its appeal', async () => {
    api.on('GET /api/v1/me/apps', {
      json: {
        apps: [
          sampleApp({ has_icon: false, block: null }),
          sampleApp({
            id: 'app_2',
            slug: 'flagged',
            status: 'blocked',
            has_icon: false,
            block: {
              blocked_at: '2026-11-23T05:00:00.000Z',
              by: 'reports',
              reason_summary: '5 reports: 3 spam, 2 malware',
              appeal: null,
              can_appeal: true,
            },
          }),
          sampleApp({
            id: 'app_3',
            slug: 'appealed',
            status: 'blocked',
            has_icon: false,
            block: {
              blocked_at: '2026-11-23T04:00:00.000Z',
              by: 'moderator',
              reason_summary: 'phishing page',
              appeal: { text: 'fixed', created_at: '2026-11-23T04:30:00.000Z' },
              can_appeal: false,
            },
          }),
        ],
      },
    });
    const res = await svc(['apps', 'list', '--mine']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.at(-2)).toBe(
      'flagged: blocked 2026-11-23T05:00:00.000Z by reports: 5 reports: 3 spam, 2 malware; appeal: svc apps appeal flagged --text "..."',
    );
    expect(lines.at(-1)).toBe(
      'appealed: blocked 2026-11-23T04:00:00.000Z by moderator: phishing page; appeal sent 2026-11-23T04:30:00.000Z',
    );
  });

  it('appeal sends the text with the session and prints the answer', async () => {
    api.on('POST /api/v1/me/apps/flagged/appeal', {
      status: 201,
      json: {
        slug: 'flagged',
        appeal: { text: 'not spam', created_at: '2026-11-23T05:10:00.000Z' },
      },
    });
    const res = await svc(['apps', 'appeal', 'flagged', '--text', '  not spam ']);
    expect(res.code).toBe(0);
    expect(last().method).toBe('POST');
    expect(last().headers.cookie).toBe(`sn_token=${TOKEN}`);
    expect(JSON.parse(last().body)).toEqual({ text: 'not spam' });
    expect(res.stdout).toBe(
      'appealed the block of flagged at 2026-11-23T05:10:00.000Z; a moderator will read it\n',
    );
  });

  it('appeal: an empty or 1,001-character text is a usage error (exit 2, nothing sent)', async () => {
    for (const text of ['   ', 'x'.repeat(1001)]) {
      const res = await svc(['apps', 'appeal', 'flagged', '--text', text]);
      expect(res.code).toBe(2);
    }
    expect(api.requests).toHaveLength(0);
  });

  it('appeal a second time: the 409 exits 1 with the message', async () => {
    api.on('POST /api/v1/me/apps/flagged/appeal', {
      status: 409,
      json: { error: 'This block was already appealed' },
    });
    const res = await svc(['apps', 'appeal', 'flagged', '--text', 'again']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/This block was already appealed/);
  });

  it('audit prints the entries with actors as roles, and the next page', async () => {
    api.on('GET /api/v1/me/apps/flagged/audit', {
      json: {
        entries: [
          {
            id: '12',
            at: '2026-11-23T05:10:00.000Z',
            actor: 'author',
            action: 'app.appealed',
            target_type: 'app',
            target_id: 'app_2',
            reason: 'not spam',
            before: { status: 'blocked', appealed: false },
            after: { status: 'blocked', appealed: true },
          },
        ],
        next_cursor: '12',
      },
    });
    const res = await svc(['apps', 'audit', 'flagged', '--limit', '1']);
    expect(res.code).toBe(0);
    expect(new URL(last().url, api.url).searchParams.get('limit')).toBe('1');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+REASON$/);
    expect(lines[1]).toMatch(/author\s+app\.appealed\s+not spam$/);
    expect(lines.at(-1)).toBe('older: --cursor 12');
  });
});

describe('svc apps withdraw', () => {
  const withdrawn = sampleApp({
    slug: 'ci-app',
    status: 'withdrawn',
    has_icon: false,
    block: null,
    withdrawn_at: '2026-11-24T10:00:00.000Z',
    purge_at: '2026-12-24T10:00:00.000Z',
  });

  it('sends DELETE with the session, and permanent=true only with --permanent', async () => {
    api.on('DELETE /api/v1/apps/ci-app', { status: 204 });
    const res = await svc(['apps', 'withdraw', 'ci-app']);
    expect(res.code).toBe(0);
    expect([last().method, last().url, last().headers.cookie]).toEqual([
      'DELETE',
      '/api/v1/apps/ci-app',
      `sn_token=${TOKEN}`,
    ]);
    expect(res.stdout).toMatch(/^withdrew ci-app: gone from the store, its keys refused; deleted for good in 30 days/);
    const json = await svc(['apps', 'withdraw', 'ci-app', '--permanent', '--json']);
    expect(json.code).toBe(0);
    expect(last().url).toBe('/api/v1/apps/ci-app?permanent=true');
    expect(JSON.parse(json.stdout)).toEqual({ slug: 'ci-app', withdrawn: true, permanent: true });
  });

  it("a key alone gets the API's 403 (exit 1); another author's app or an unknown one exits 1", async () => {
    api.on('DELETE /api/v1/apps/ci-app', {
      status: 403,
      json: { error: 'API keys cannot be used for this endpoint; use the session cookie' },
    });
    const byKey = await run(['apps', 'withdraw', 'ci-app'], {
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: 'svc_live_pipeline' },
    });
    expect(byKey.code).toBe(1);
    expect(byKey.stderr).toMatch(/API keys cannot be used for this endpoint/);
    expect(last().headers.authorization).toBe('Bearer svc_live_pipeline');
    api.on('DELETE /api/v1/apps/nope', { status: 404, json: { error: 'App not found' } });
    const unknown = await svc(['apps', 'withdraw', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/App not found/);
  });

  it('without a slug: a usage error, nothing sent', async () => {
    const res = await svc(['apps', 'withdraw']);
    expect(res.code).toBe(2);
    expect(api.requests).toHaveLength(0);
  });

  it('list --mine says when a withdrawn app goes for good', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [withdrawn] } });
    const res = await svc(['apps', 'list', '--mine']);
    expect(res.code).toBe(0);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe(
      'ci-app: withdrawn 2026-11-24T10:00:00.000Z; deleted for good 2026-12-24T10:00:00.000Z',
    );
  });

  it('submit --from of a withdrawn app exits 1 naming the withdrawal, and sends nothing more', async () => {
    api.on('GET /api/v1/me/apps', { json: { apps: [withdrawn] } });
    const home = loggedIn();
    const manifest = path.join(home, 'app.json');
    writeFileSync(manifest, JSON.stringify({ slug: 'ci-app', name: 'CI App', url: 'https://ci-app.test' }));
    const res = await run(['apps', 'submit', '--from', manifest], { env: { SVC_BASE_URL: api.url }, home });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /ci-app was withdrawn \(2026-11-24T10:00:00.000Z\); it is deleted for good at 2026-12-24T10:00:00.000Z/,
    );
    expect(api.requests.map((r) => r.method)).toEqual(['GET']);
  });
});
