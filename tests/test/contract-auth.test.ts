// Contract test through real processes: the gateway and the auth service, every answer
// checked against the /openapi.json the gateway serves (contract-harness.ts). Covers the
// login flow with its errors (400, 401, 409, 413, 429), the discovery documents, and the
// health endpoints (which stay outside the public contract).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract } from './contract-harness.js';
import { login as loginWith } from './login.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const PUBLIC_BASE_URL = 'https://svc.contract.test';

const system = createTestSystem();
let resend: FakeResend;
let auth: ServiceProcess;
let gateway: ServiceProcess;
let contract: Contract;

beforeAll(async () => {
  resend = await system.resend();
  auth = await system.service('auth');
  gateway = await system.start('gateway/dist/main.js', { AUTH_URL: auth.url, PUBLIC_BASE_URL });
  contract = await loadContract(gateway.url);
}, 60_000);

afterAll(() => system.stop());

/** Logs `email` in through the gateway; answers the session cookie (`sn_token=...`). */
const login = (email: string) =>
  loginWith((path, init) => contract.request(path, init), resend, email);

describe('the served contract', () => {
  it('is the generated document, pointing at PUBLIC_BASE_URL', async () => {
    const doc = await contract.request('/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.servers[0].url).toBe(PUBLIC_BASE_URL);
    // fetch accepts gzip, so this is the gzip copy's ETag (the identity one has no suffix).
    expect(doc.headers.get('etag')).toMatch(/^"[\w-]{32}-gzip"$/);
    expect(doc.headers.get('vary')).toMatch(/Accept-Encoding/i);
  });

  it('serves every discovery document as documented', async () => {
    for (const path of [
      '/llms.txt',
      '/llms-full.txt',
      '/.well-known/ai-plugin.json',
      '/.well-known/mcp.json',
    ]) {
      const res = await contract.request(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.text).toContain(PUBLIC_BASE_URL);
    }
    const head = await contract.request('/llms.txt', { method: 'HEAD' });
    expect(head.text).toBe('');
  });
});

describe('auth endpoints against the contract', () => {
  it('send-code: 200 with rate-limit headers, 400 with details, 413, then 429', async () => {
    const email = 'contract.sender@example.com';
    const sent = await contract.request('/api/auth/send-code', { method: 'POST', body: { email } });
    expect(sent.body).toEqual({ sent: true });
    expect(sent.headers.get('ratelimit-limit')).toBe('3');

    const invalid = await contract.request('/api/auth/send-code', {
      method: 'POST',
      body: { email: 'nope' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details).toBeDefined();
    const notJson = await contract.request('/api/auth/send-code', {
      method: 'POST',
      body: '{"email":',
    });
    expect(notJson.status).toBe(400);
    const huge = await contract.request('/api/auth/send-code', {
      method: 'POST',
      body: { email, padding: 'x'.repeat(70 * 1024) },
    });
    expect(huge.status).toBe(413);

    await contract.request('/api/auth/send-code', { method: 'POST', body: { email } });
    await contract.request('/api/auth/send-code', { method: 'POST', body: { email } });
    const limited = await contract.request('/api/auth/send-code', {
      method: 'POST',
      body: { email },
    });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('verify: 400 for a wrong code, 200 with the session cookie', async () => {
    const email = 'contract.verify@example.com';
    await contract.request('/api/auth/send-code', { method: 'POST', body: { email } });
    const wrong = await contract.request('/api/auth/verify', {
      method: 'POST',
      body: { email, code: '000000' },
    });
    // A real code is random: if it happens to be 000000 the wrong attempt is the right one.
    if (resend.lastCodeFor(email) !== '000000') {
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual({ error: 'Invalid or expired code' });
    }
    const malformed = await contract.request('/api/auth/verify', {
      method: 'POST',
      body: { email, code: 'abc' },
    });
    expect(malformed.status).toBe(400);
    const ok = await contract.request('/api/auth/verify', {
      method: 'POST',
      body: { email, code: resend.lastCodeFor(email) },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^sn_token=.+HttpOnly/i);
  });

  it('me, set-username (400, 409, 200) and logout', async () => {
    const anonymous = await contract.request('/api/auth/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Authentication required' });

    const first = await login('contract.first@example.com');
    const second = await login('contract.second@example.com');
    const me = await contract.request('/api/auth/me', { cookie: first.cookie });
    expect(me.body.user.email).toBe('contract.first@example.com');

    const invalid = await contract.request('/api/auth/set-username', {
      method: 'POST',
      cookie: first.cookie,
      body: { username: 'a' },
    });
    expect(invalid.status).toBe(400);
    const taken = await contract.request('/api/auth/set-username', {
      method: 'POST',
      cookie: first.cookie,
      body: { username: second.username },
    });
    expect(taken.status).toBe(409);
    const renamed = await contract.request('/api/auth/set-username', {
      method: 'POST',
      cookie: first.cookie,
      body: { username: 'contract-renamed' },
    });
    expect(renamed.status).toBe(200);
    const noSession = await contract.request('/api/auth/set-username', {
      method: 'POST',
      body: { username: 'whoever' },
    });
    expect(noSession.status).toBe(401);

    const fresh = renamed.headers.get('set-cookie')!.split(';')[0]!;
    const out = await contract.request('/api/auth/logout', { method: 'POST', cookie: fresh });
    expect(out.body).toEqual({ success: true });
    expect((await contract.request('/api/auth/me', { cookie: fresh })).status).toBe(401);
  });

  it('exercised every auth operation with its main statuses', () => {
    const covered = contract.covered();
    const expected = [
      'sendLoginCode 200',
      'sendLoginCode 400',
      'sendLoginCode 413',
      'sendLoginCode 429',
      'verifyLoginCode 200',
      'verifyLoginCode 400',
      'getSessionUser 200',
      'getSessionUser 401',
      'setUsername 200',
      'setUsername 400',
      'setUsername 401',
      'setUsername 409',
      'logout 200',
      'getOpenApi 200',
      'getLlmsTxt 200',
      'getLlmsFullTxt 200',
      'getAiPluginManifest 200',
      'getMcpManifest 200',
    ];
    expect(expected.filter((key) => !covered.has(key))).toEqual([]);
  });
});

describe('health', () => {
  it('the gateway and auth are live and auth is ready; health stays outside the public contract', async () => {
    const live = await fetch(`${gateway.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${auth.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(contract.operationFor('GET', '/healthz')).toBeUndefined();
    await expect(contract.request('/healthz')).rejects.toThrow(
      /no operation documents GET \/healthz/,
    );
  });
});
