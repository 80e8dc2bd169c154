// Sign out everywhere (docs/decisions/032-sign-out-everywhere.md) end to end: the real
// gateway, auth, app-store, sites, chat and realtime processes, every answer checked against
// the served OpenAPI document, and `svc logout --all` (the built binary). Two logins of one
// user and one of another: a sign-out everywhere from one of the first user's sessions ends
// both of them in every service at once, and nothing of the other user's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract, type ContractRequestInit } from './contract-harness.js';
import { codeFor, login as loginWith, type LoggedIn } from './login.js';
import { freshHome, runSvc as svc } from './svc-binary.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const DOMAIN = 'sign-out.test';
/** A moderator by configuration: the moderators-only endpoints of chat answer its session 200. */
const ALICE = `alice@${DOMAIN}`;

const system = createTestSystem();
let resend: FakeResend;
let gateway: ServiceProcess;
let contract: Contract;

beforeAll(async () => {
  resend = await system.resend();
  const [auth, appStore, sites, chat] = await Promise.all([
    system.service('auth', { MODERATOR_EMAILS: ALICE }),
    system.service('app-store'),
    system.service('sites'),
    system.service('chat'),
  ]);
  const realtime = await system.service('realtime', { CHAT_URL: chat!.url });
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth!.url,
    APP_STORE_URL: appStore!.url,
    SITES_URL: sites!.url,
    CHAT_URL: chat!.url,
    REALTIME_URL: realtime.url,
  });
  contract = await loadContract(gateway.url);
}, 120_000);

afterAll(() => system.stop(), 60_000);

let ipCounter = 0;
/** A client address of its own (documentation range): per-IP limits stay apart. */
const freshIp = () => `192.0.2.${++ipCounter}`;

const call = (p: string, init: ContractRequestInit & { ip?: string } = {}) => {
  const { ip = freshIp(), ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('x-forwarded-for', ip);
  return contract.request(p, { ...rest, headers });
};
const login = (email: string): Promise<LoggedIn> => {
  const ip = freshIp();
  return loginWith((p, init) => call(p, { ...init, ip }), resend, email);
};
const logoutAll = (cookie?: string) => call('/api/auth/logout-all', { method: 'POST', cookie });

/** What each service answers a session: one endpoint per service that reads it. */
async function answers(cookie: string) {
  const status = async (p: string) => (await call(p, { cookie })).status;
  return {
    auth: await status('/api/auth/me'),
    'app-store': await status('/api/v1/me'),
    sites: await status('/api/bookmarks'),
    // Moderators only: 200 for ALICE, 403 for another user, 401 without a session.
    chat: await status('/api/moderation/chat/audit'),
  };
}
const everywhere = (status: number) => ({
  auth: status,
  'app-store': status,
  sites: status,
  chat: status,
});

describe('POST /api/auth/logout-all through the gateway', () => {
  it("ends both sessions of the user in every service at once, and the other user's session goes on", async () => {
    const phone = await login(ALICE);
    const laptop = await login(ALICE);
    const bob = await login(`bob@${DOMAIN}`);
    expect(await answers(phone.cookie)).toEqual(everywhere(200));
    expect(await answers(laptop.cookie)).toEqual(everywhere(200));
    expect(await answers(bob.cookie)).toEqual({ ...everywhere(200), chat: 403 });
    const post = (cookie: string) =>
      call('/api/messages', { method: 'POST', cookie, body: { content: 'who am I?' } });
    expect((await post(phone.cookie)).body.message.sender_name).toBe(phone.username);

    const out = await logoutAll(laptop.cookie);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect(out.headers.get('set-cookie')).toMatch(/^sn_token=;.*Expires=Thu, 01 Jan 1970/);

    expect(await answers(phone.cookie)).toEqual(everywhere(401));
    expect(await answers(laptop.cookie)).toEqual(everywhere(401));
    expect(await answers(bob.cookie)).toEqual({ ...everywhere(200), chat: 403 });
    // Chat takes an ended session for a visitor.
    const posted = await post(phone.cookie);
    expect(posted.status).toBe(201);
    expect(posted.body.message.sender_name).not.toBe(phone.username);

    // A login afterwards works everywhere, the moderator role included.
    const again = await login(ALICE);
    expect(await answers(again.cookie)).toEqual(everywhere(200));
  });

  it('401 without a session or with an ended one; 429 with Retry-After past two an hour', async () => {
    const anonymous = await logoutAll();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Authentication required' });

    const email = `carol@${DOMAIN}`;
    const first = await login(email);
    expect((await logoutAll(first.cookie)).status).toBe(200);
    expect((await logoutAll(first.cookie)).status).toBe(401);
    expect((await logoutAll((await login(email)).cookie)).status).toBe(200);
    const third = await login(email);
    const refused = await logoutAll(third.cookie);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused, so nothing ended.
    expect((await call('/api/auth/me', { cookie: third.cookie })).status).toBe(200);
  });
});

describe('realtime', () => {
  const wsUrl = () => `${gateway.url.replace(/^http/, 'ws')}/api/ws`;
  /** A socket through the gateway and every frame it receives. */
  async function socket(cookie?: string) {
    const frames: string[] = [];
    const ws = new WebSocket(wsUrl(), { headers: cookie ? { cookie } : {} });
    ws.on('message', (data) => frames.push(data.toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return { ws, frames };
  }
  const frameWith = (frames: string[], content: string) =>
    frames.find(
      (f) => (JSON.parse(f) as { payload?: { content?: string } }).payload?.content === content,
    );
  async function framesOf(sockets: Array<{ frames: string[] }>, content: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = sockets.map((s) => frameWith(s.frames, content));
      if (found.every((f) => f !== undefined)) return found;
      if (Date.now() > deadline) throw new Error(`"${content}" did not reach every socket`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('reads no session: a socket of a session that ends gets what an anonymous one gets, and stays open', async () => {
    const dave = await login(`dave@${DOMAIN}`);
    const [withSession, anonymous] = await Promise.all([socket(dave.cookie), socket()]);
    try {
      const post = (content: string) =>
        call('/api/messages', { method: 'POST', body: { content } });
      expect((await post('before the sign-out')).status).toBe(201);
      const before = await framesOf([withSession, anonymous], 'before the sign-out');
      expect(before[0]).toBe(before[1]);

      expect((await logoutAll(dave.cookie)).status).toBe(200);
      expect((await post('after the sign-out')).status).toBe(201);
      const after = await framesOf([withSession, anonymous], 'after the sign-out');
      expect(after[0]).toBe(after[1]);
      expect(withSession.ws.readyState).toBe(WebSocket.OPEN);
      // A handshake with the ended session is a handshake like any other.
      const late = await socket(dave.cookie);
      expect(late.ws.readyState).toBe(WebSocket.OPEN);
      late.ws.close();
    } finally {
      withSession.ws.close();
      anonymous.ws.close();
    }
  });
});

describe('svc logout --all', () => {
  const home = freshHome();
  const env = () => ({
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    SVC_BASE_URL: gateway.url,
  });
  const sessionFile = path.join(home, 'config', 'svc', 'session.json');
  const svcLogin = (email: string) =>
    svc(['login'], env(), async (stdin) => {
      stdin.write(`${email}\n`);
      stdin.end(`${await codeFor(resend, email).catch(() => '')}\n`);
    });

  it("ends the CLI's session and the browser's, and forgets the stored one", async () => {
    const email = `erin@${DOMAIN}`;
    expect((await svcLogin(email)).code).toBe(0);
    const browser = await login(email);
    expect((await svc(['whoami'], env())).code).toBe(0);

    const out = await svc(['logout', '--all', '--json'], env());
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ logged_out: true, everywhere: true });
    expect(existsSync(sessionFile)).toBe(false);
    expect((await call('/api/auth/me', { cookie: browser.cookie })).status).toBe(401);

    const again = await svc(['logout', '--all'], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not logged in/);
  }, 60_000);

  it('a stored session that has already ended: exit 1, said so, and forgotten', async () => {
    const email = `frank@${DOMAIN}`;
    expect((await svcLogin(email)).code).toBe(0);
    const browser = await login(email);
    expect((await logoutAll(browser.cookie)).status).toBe(200);

    const out = await svc(['logout', '--all'], env());
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/already ended/);
    expect(existsSync(sessionFile)).toBe(false);
  }, 60_000);
});
