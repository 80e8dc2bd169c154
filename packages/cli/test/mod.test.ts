// svc mod …, the built binary against a loopback fake of the API: method, path and body of
// each moderator call, the stored session sent with it, text and --json output, a 403 that
// exits 1 with the API's message, and usage errors (exit 2) that send nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, startFakeApi, tempHome, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const TOKEN = 'mod.jwt.sig';
/** A config home holding the session `svc login` would have stored for the fake API. */
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
const mod = (args: string[]) =>
  run(['mod', ...args], { env: { SVC_BASE_URL: api.url }, home: loggedIn() });
const last = () => api.requests.at(-1)!;
const bodyOf = () => JSON.parse(last().body || 'null');

const action = { slug: 'spam-app', status: 'approved', resolved_reports: 3 };

describe('svc mod: apps', () => {
  it('queue sends the session and prints a table, or --json', async () => {
    const answer = {
      apps: [
        {
          slug: 'spam-app',
          name: 'Spam App',
          status: 'blocked',
          open_reporters: 5,
          reasons: { spam: 4, malware: 1 },
          latest_report_at: '2026-11-22T01:02:03.000Z',
          appeal: null,
        },
        {
          slug: 'quiet-app',
          name: 'Quiet App',
          status: 'blocked',
          open_reporters: 0,
          reasons: {},
          latest_report_at: null,
          appeal: { text: 'I fixed it', created_at: '2026-11-22T02:00:00.000Z' },
        },
      ],
      meta: { limit: 2, offset: 0, count: 2, total: 3 },
    };
    api.on('GET /api/v1/moderation/reports', { json: answer });
    const res = await mod(['queue', '--limit', '1']);
    expect(res.code).toBe(0);
    expect(last().headers.cookie).toBe(`sn_token=${TOKEN}`);
    expect(new URL(last().url, api.url).searchParams.get('limit')).toBe('1');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+STATUS\s+REPORTERS\s+REASONS\s+LATEST\s+APPEAL$/);
    expect(lines[1]).toMatch(/spam-app\s+Spam App\s+blocked\s+5\s+spam:4 malware:1\s+2026-11-22T01:02:03.000Z\s+-$/);
    // An appealed block without open reports: no reporters, no latest report, the appeal.
    expect(lines[2]).toMatch(/quiet-app\s+Quiet App\s+blocked\s+0\s+-\s+I fixed it$/);
    expect(lines.at(-1)).toBe('2 of 3 apps (more: --offset 2)');

    const json = await run(['--json', 'mod', 'queue'], {
      env: { SVC_BASE_URL: api.url },
      home: loggedIn(),
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(answer);
  });

  it('queue says so when nothing is reported', async () => {
    api.on('GET /api/v1/moderation/reports', {
      json: { apps: [], meta: { limit: 50, offset: 0, count: 0, total: 0 } },
    });
    const res = await mod(['queue']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('no open reports\n');
  });

  it('history prints the app and its reports', async () => {
    api.on('GET /api/v1/moderation/apps/spam-app/reports', {
      json: {
        app: { slug: 'spam-app', name: 'Spam App', status: 'blocked' },
        reports: [
          {
            id: 'r1',
            reason: 'spam',
            detail: 'ads everywhere',
            created_at: '2026-11-22T01:02:03.000Z',
            resolved_at: null,
            open: true,
          },
        ],
      },
    });
    const res = await mod(['history', 'spam-app']);
    expect(res.code).toBe(0);
    expect(last().method).toBe('GET');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('spam-app (Spam App): blocked');
    expect(lines[3]).toMatch(/^r1\s+spam\s+yes\s+2026-11-22T01:02:03.000Z\s+-\s+ads everywhere$/);
  });

  it('restore, block and dismiss POST the reason and report the outcome', async () => {
    api.on('POST /api/v1/moderation/apps/spam-app/restore', { json: action });
    let res = await mod(['restore', 'spam-app', '--reason', 'false alarm']);
    expect(res.code).toBe(0);
    expect(bodyOf()).toEqual({ reason: 'false alarm' });
    expect(res.stdout).toBe('restored spam-app: now approved; 3 open reports resolved\n');

    api.on('POST /api/v1/moderation/apps/spam-app/block', {
      json: { ...action, status: 'blocked', resolved_reports: 1 },
    });
    res = await mod(['block', 'spam-app', '--reason', 'malware']);
    expect(res.code).toBe(0);
    expect(last().path).toBe('/api/v1/moderation/apps/spam-app/block');
    expect(bodyOf()).toEqual({ reason: 'malware' });
    expect(res.stdout).toBe('blocked spam-app: now blocked; 1 open report resolved\n');

    api.on('POST /api/v1/moderation/apps/spam-app/dismiss', { json: action });
    res = await mod(['dismiss', 'spam-app']);
    expect(res.code).toBe(0);
    expect(bodyOf()).toEqual({});
    res = await mod(['dismiss', 'spam-app', '--reason', 'not spam']);
    expect(bodyOf()).toEqual({ reason: 'not spam' });
    expect(res.stdout).toBe(
      'dismissed reports of spam-app: now approved; 3 open reports resolved\n',
    );
  });

  it('audit passes the filters and shows the next cursor', async () => {
    const answer = {
      entries: [
        {
          id: 'a1',
          at: '2026-11-22T01:02:03.000Z',
          actor: 'u1',
          action: 'app.restore',
          target_type: 'app',
          target_id: 'spam-app',
          reason: 'false alarm',
          before: { status: 'blocked' },
          after: { status: 'approved' },
        },
      ],
      next_cursor: 'c2',
    };
    api.on('GET /api/v1/moderation/audit', { json: answer });
    const res = await mod([
      'audit',
      '--target-type',
      'app',
      '--target-id',
      'spam-app',
      '--cursor',
      'c1',
      '--limit',
      '1',
    ]);
    expect(res.code).toBe(0);
    const q = new URL(last().url, api.url).searchParams;
    expect([q.get('target_type'), q.get('target_id'), q.get('cursor'), q.get('limit')]).toEqual([
      'app',
      'spam-app',
      'c1',
      '1',
    ]);
    expect(res.stdout).toMatch(/u1\s+app\.restore\s+app:spam-app\s+false alarm/);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe('older: --cursor c2');
  });

  it('audit says when a target is gone, removed by retention', async () => {
    const entry = {
      id: 'c1',
      at: '2026-11-22T01:02:03.000Z',
      actor: 'm1',
      action: 'message.deleted',
      target_type: 'message',
      target_id: 'msg-1',
      target_removed: 'retention',
      reason: '',
      before: { deleted: false },
      after: { deleted: true },
    };
    api.on('GET /api/moderation/chat/audit', { json: { entries: [entry], next_cursor: null } });
    const res = await mod(['audit', '--service', 'chat']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/message:msg-1 \(removed: retention\)/);
  });
});

describe('svc mod: sites and chat', () => {
  it('hide-site and restore-site', async () => {
    api.on('POST /api/moderation/sites/s1/hide', {
      json: {
        site_id: 's1',
        hidden: true,
        hidden_at: '2026-11-22T01:02:03.000Z',
        hidden_reason: 'phishing',
      },
    });
    let res = await mod(['hide-site', 's1', '--reason', 'phishing']);
    expect(res.code).toBe(0);
    expect(bodyOf()).toEqual({ reason: 'phishing' });
    expect(last().headers.cookie).toBe(`sn_token=${TOKEN}`);
    expect(res.stdout).toBe('hid site s1 at 2026-11-22T01:02:03.000Z: phishing\n');

    api.on('POST /api/moderation/sites/s1/restore', { json: { site_id: 's1', hidden: false } });
    res = await mod(['restore-site', 's1']);
    expect(res.code).toBe(0);
    expect(last().method).toBe('POST');
    expect(res.stdout).toBe('restored site s1\n');
  });

  it('delete-message sends DELETE; --json prints the answer', async () => {
    api.on('DELETE /api/moderation/messages/m1', { json: { deleted: true, id: 'm1' } });
    const res = await run(['mod', 'delete-message', 'm1', '--json'], {
      env: { SVC_BASE_URL: api.url },
      home: loggedIn(),
    });
    expect(res.code).toBe(0);
    expect(last().method).toBe('DELETE');
    expect(JSON.parse(res.stdout)).toEqual({ deleted: true, id: 'm1' });
  });

  it('mute posts the message id as the sender and the minutes', async () => {
    api.on('POST /api/moderation/chat/mutes', {
      json: { muted: true, sender_kind: 'visitor', muted_until: '2026-11-22T02:02:03.000Z' },
    });
    const res = await mod(['mute', 'm1', '--minutes', '60']);
    expect(res.code).toBe(0);
    expect(bodyOf()).toEqual({ sender: 'm1', minutes: 60 });
    expect(res.stdout).toBe('muted the sender (visitor) until 2026-11-22T02:02:03.000Z\n');
    await mod(['mute', 'm1', '--minutes', '5', '--reason', '  flooding  ']);
    expect(bodyOf()).toEqual({ sender: 'm1', minutes: 5, reason: 'flooding' });
  });

  const entry = (target_type: string, target_id: string, action: string) => ({
    id: '7',
    at: '2026-11-23T01:02:03.000Z',
    actor: 'u9',
    action,
    target_type,
    target_id,
    reason: 'spam',
    before: { hidden: false },
    after: { hidden: true },
  });

  it.each([
    ['--service sites', ['--service', 'sites'], '/api/moderation/sites/audit', null],
    ['--service chat', ['--service', 'chat'], '/api/moderation/chat/audit', null],
    ['--service apps', ['--service', 'apps'], '/api/v1/moderation/audit', null],
    [
      'a site target',
      ['--target-type', 'site', '--target-id', 's1'],
      '/api/moderation/sites/audit',
      'site',
    ],
    ['a message target', ['--target-type', 'message'], '/api/moderation/chat/audit', 'message'],
    [
      'a sender target',
      ['--target-type', 'sender', '--target-id', 'ip:ab'],
      '/api/moderation/chat/audit',
      'sender',
    ],
    ['an app target', ['--target-type', 'app'], '/api/v1/moderation/audit', 'app'],
  ])("audit with %s reads that service's log", async (_name, args, path, targetType) => {
    api.on(`GET ${path}`, {
      json: { entries: [entry('site', 's1', 'site.hidden')], next_cursor: null },
    });
    const res = await mod(['audit', ...args]);
    expect(res.code).toBe(0);
    const url = new URL(last().url, api.url);
    expect(url.pathname).toBe(path);
    expect(url.searchParams.get('target_type')).toBe(targetType);
    expect(res.stdout).toMatch(/u9\s+site\.hidden\s+site:s1\s+spam/);
  });
});

describe('svc mod: errors', () => {
  it('a 403 prints the API message and exits 1', async () => {
    api.on('POST /api/moderation/sites/s1/hide', {
      status: 403,
      json: { error: 'Moderators only' },
    });
    const res = await mod(['hide-site', 's1', '--reason', 'x']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/Moderators only \[HTTP 403/);
  });

  it('a 409 exits 1 too', async () => {
    api.on('POST /api/v1/moderation/apps/ok-app/restore', {
      status: 409,
      json: { error: 'App is not blocked' },
    });
    const res = await mod(['restore', 'ok-app', '--reason', 'x']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/App is not blocked \[HTTP 409/);
  });

  it.each([
    ['restore without --reason', ['restore', 'a'], /required option '--reason <text>'/],
    ['block with a blank reason', ['block', 'a', '--reason', '  '], /reason/],
    ['hide-site without --reason', ['hide-site', 's1'], /required option '--reason <text>'/],
    ['mute without --minutes', ['mute', 'm1'], /required option '--minutes <n>'/],
    ['mute for 0 minutes', ['mute', 'm1', '--minutes', '0'], /--minutes must be 1-43200/],
    ['mute for too long', ['mute', 'm1', '--minutes', '43201'], /--minutes must be 1-43200/],
    ['mute minutes not a number', ['mute', 'm1', '--minutes', 'ten'], /whole number/],
    ['queue --limit too big', ['queue', '--limit', '500'], /limit: Too big/i],
    ['audit --target-id alone', ['audit', '--target-id', 'x'], /--target-id needs --target-type/],
    ['audit of an unknown target type', ['audit', '--target-type', 'user'], /target_type/],
    [
      'audit of an unknown service',
      ['audit', '--service', 'auth'],
      /--service must be one of apps, sites, chat/,
    ],
    [
      'audit of a site in the chat log',
      ['audit', '--service', 'chat', '--target-type', 'site'],
      /target_type/,
    ],
    [
      'mute with a reason too long',
      ['mute', 'm1', '--minutes', '5', '--reason', 'x'.repeat(501)],
      /reason/,
    ],
    ['history without a slug', ['history'], /missing required argument 'slug'/],
  ])('%s exits 2 and sends nothing', async (_name, args, message) => {
    const res = await mod(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(api.requests).toEqual([]);
  });
});
