// svc account export and delete, the built binary against a loopback fake of the API: the
// stored session sent to GET /api/auth/export, the document on stdout as it came (with or
// without --json), nothing sent without a session, an API error (503) that writes nothing to
// stdout; delete mails a code to the account's address, sends the typed code, and forgets
// the session only once the API deleted the account.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, startFakeApi, tempHome, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const TOKEN = 'user.jwt.sig';
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

const exported = {
  format: 'svc-export/1',
  exported_at: '2026-11-21T10:00:00.000Z',
  user: { id: 'u1', email: 'ann@example.com', username: 'ann' },
  sites: { submissions: [] },
  chat: { messages: [{ id: 'm1', content: 'héllo ✓' }] },
  apps: { apps: [] },
  moderation: { by_you: [], about_you: [] },
};

describe('svc account export', () => {
  it('prints the export as JSON on stdout, with or without --json, sending the session', async () => {
    api.on('GET /api/auth/export', { json: exported });
    for (const args of [['account', 'export'], ['--json', 'account', 'export']]) {
      const res = await run(args, { env: { SVC_BASE_URL: api.url }, home: loggedIn() });
      expect([res.code, res.stderr]).toEqual([0, '']);
      expect(JSON.parse(res.stdout)).toEqual(exported);
      expect(api.requests.at(-1)!.headers.cookie).toBe(`sn_token=${TOKEN}`);
    }
  });

  it('exits 1 without a session and sends nothing, an API key notwithstanding', async () => {
    const res = await run(['account', 'export'], {
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: 'svc_live_abcdef123456' },
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/not logged in to .*: run `svc login` first/);
    expect(api.requests).toEqual([]);
  });

  it('exits 1 with the API message when the export cannot be made, writing nothing to stdout', async () => {
    api.on('GET /api/auth/export', {
      status: 503,
      json: { error: 'Service temporarily unavailable' },
      headers: { 'retry-after': '30' },
    });
    const res = await run(['account', 'export'], { env: { SVC_BASE_URL: api.url }, home: loggedIn() });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/Service temporarily unavailable \[HTTP 503/);
  });
});

describe('svc account delete', () => {
  const user = { id: 'u1', email: 'ann@example.com', username: 'ann' };
  /** The stored sessions (the file goes with the last one). */
  const sessionsIn = (home: string) => {
    const file = path.join(home, '.config', 'svc', 'session.json');
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).sessions : {};
  };

  it("mails a code to the account's address, sends the typed code, and forgets the session", async () => {
    api.on('GET /api/auth/me', { json: { user, is_moderator: false } });
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    api.on('DELETE /api/auth/me', { json: { deleted: true } });
    const home = loggedIn();
    const res = await run(['account', 'delete'], { env: { SVC_BASE_URL: api.url }, home, input: '123456\n' });
    expect([res.code, res.stdout]).toEqual([0, 'deleted the account ann; its data is being removed from every service\n']);
    expect(res.stderr).toMatch(/deletes the account ann \(ann@example.com\).*\n.*code just sent to ann@example.com/);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/auth/me',
      'POST /api/auth/send-code',
      'DELETE /api/auth/me',
    ]);
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ email: 'ann@example.com' });
    expect(JSON.parse(api.requests[2]!.body)).toEqual({ code: '123456' });
    expect(api.requests[2]!.headers.cookie).toBe(`sn_token=${TOKEN}`);
    expect(sessionsIn(home)).toEqual({});
  });

  it('keeps the session when the code is refused, and sends nothing for a malformed one', async () => {
    api.on('GET /api/auth/me', { json: { user, is_moderator: false } });
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    api.on('DELETE /api/auth/me', { status: 400, json: { error: 'Invalid or expired code' } });
    const home = loggedIn();
    const wrong = await run(['account', 'delete'], { env: { SVC_BASE_URL: api.url }, home, input: '000000\n' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Invalid or expired code \[HTTP 400/);
    expect(sessionsIn(home)[api.url]).toEqual({ token: TOKEN });
    api.reset();
    api.on('GET /api/auth/me', { json: { user, is_moderator: false } });
    api.on('POST /api/auth/send-code', { json: { sent: true } });
    const malformed = await run(['account', 'delete'], { env: { SVC_BASE_URL: api.url }, home, input: 'yes\n' });
    expect(malformed.code).toBe(2);
    expect(api.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
  });

  it('exits 1 without a session and sends nothing', async () => {
    const res = await run(['account', 'delete'], { env: { SVC_BASE_URL: api.url } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/not logged in to .*: run `svc login` first/);
    expect(api.requests).toEqual([]);
  });
});
