// The author's side of moderation in svc, the built binary against a
// loopback fake of the API: the block of each blocked app under `apps list --mine`,
// `apps appeal` (session, body, usage errors that send nothing, a 409 that exits 1) and
// `apps audit`.
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
