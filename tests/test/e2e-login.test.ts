// End to end: the real gateway and auth processes; a person logs in through the gateway.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { createTestSystem, type FakeResend } from './system-processes.js';

const system = createTestSystem();
let resend: FakeResend;
let auth: ServiceProcess;
let gateway: ServiceProcess;

beforeAll(async () => {
  resend = await system.resend();
  auth = await system.service('auth', { LOG_LEVEL: 'info' });
  gateway = await system.start('gateway/dist/main.js', { LOG_LEVEL: 'info', AUTH_URL: auth.url });
}, 60_000);

afterAll(() => system.stop());

async function call(path: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.body) headers.set('content-type', 'application/json');
  if (init.cookie) headers.set('cookie', init.cookie);
  const res = await fetch(`${gateway.url}${path}`, { ...init, headers });
  return { res, body: await res.json() };
}

describe('logging in through the gateway', () => {
  it('send-code, verify, me, set-username, logout', async () => {
    const email = 'e2e.person@example.com';
    const sent = await call('/api/auth/send-code', {
      method: 'POST',
      body: JSON.stringify({ email }),
    });
    expect(sent.res.status).toBe(200);
    expect(sent.body).toEqual({ sent: true });
    expect(sent.res.headers.get('x-request-id')).toBeTruthy();

    const verified = await call('/api/auth/verify', {
      method: 'POST',
      body: JSON.stringify({ email, code: resend.lastCodeFor(email) }),
    });
    expect(verified.res.status).toBe(200);
    expect(verified.body.user).toMatchObject({ email, username: 'e2e_person' });
    const setCookie = verified.res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    const cookie = setCookie.split(';')[0]!;

    const me = await call('/api/auth/me', { cookie });
    expect(me.res.status).toBe(200);
    expect(me.body.user.email).toBe(email);

    const renamed = await call('/api/auth/set-username', {
      method: 'POST',
      cookie,
      body: JSON.stringify({ username: 'e2e-renamed' }),
    });
    expect(renamed.res.status).toBe(200);
    const fresh = renamed.res.headers.get('set-cookie')!.split(';')[0]!;

    const out = await call('/api/auth/logout', { method: 'POST', cookie: fresh });
    expect(out.body).toEqual({ success: true });
    expect((await call('/api/auth/me', { cookie: fresh })).res.status).toBe(401);
  });

  it('answers unknown API paths with 404 JSON at the gateway', async () => {
    const res = await call('/api/nothing-here');
    expect(res.res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it('stops both processes gracefully on SIGTERM', async () => {
    expect(await gateway.stop()).toBe(0);
    expect(await auth.stop()).toBe(0);
  });
});
