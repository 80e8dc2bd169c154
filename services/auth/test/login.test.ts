import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const sendCode = (email: string) => request(h.app).post('/api/auth/send-code').send({ email });
const verify = (email: string, code: string) =>
  request(h.app).post('/api/auth/verify').send({ email, code });
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('send-code', () => {
  it('sends a 6-digit code through Resend in the text and the HTML body', async () => {
    const res = await sendCode('Alice@Example.com');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: true });
    const mail = h.resend.sent.at(-1)!;
    expect(mail.to).toEqual('alice@example.com');
    expect(mail.from).toBe('Svc <login@svc.test>');
    expect(mail.authorization).toBe('Bearer re_test_key');
    const code = h.resend.lastCodeFor('alice@example.com');
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.html).toContain(code);
  });

  it('GET /api/auth/send-code answers 405 JSON with Allow: POST (a known path, the wrong method)', async () => {
    const res = await request(h.app).get('/api/auth/send-code');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({ error: 'Method not allowed' });
    const me = await request(h.app).post('/api/auth/me');
    expect([me.status, me.headers.allow]).toEqual([405, 'DELETE, GET, HEAD']);
  });

  it('stores only a hash of the code', async () => {
    await sendCode('hash@example.com').expect(200);
    const code = h.resend.lastCodeFor('hash@example.com');
    const row = await h.db.loginCode.findUnique({ where: { email: 'hash@example.com' } });
    expect(row!.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.codeHash).not.toContain(code);
    expect(row!.expiresAt.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(row!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });

  it('deletes up to 10 expired codes, oldest first, and never a live one', async () => {
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    const dead = Array.from({ length: 12 }, (_, i) => ({
      email: `dead-${String(i).padStart(2, '0')}@example.com`,
      codeHash: 'f'.repeat(64),
      expiresAt: minutesAgo(60 - i), // dead-00 expired first
    }));
    await h.db.loginCode.createMany({
      data: [...dead, { email: 'live@example.com', codeHash: 'e'.repeat(64), expiresAt: minutesAgo(-5) }],
    });
    await sendCode('sweeper@example.com').expect(200);
    const left = await h.db.loginCode.findMany({
      where: { email: { in: [...dead.map((d) => d.email), 'live@example.com', 'sweeper@example.com'] } },
      orderBy: { email: 'asc' },
      select: { email: true },
    });
    expect(left.map((r) => r.email)).toEqual([
      'dead-10@example.com',
      'dead-11@example.com',
      'live@example.com',
      'sweeper@example.com',
    ]);
    await sendCode('sweeper@example.com').expect(200);
    expect(await h.db.loginCode.count({ where: { email: { startsWith: 'dead-' } } })).toBe(0);
  });

  it.each([[{}], [{ email: 'not-an-email' }], [{ email: 42 }]])(
    'refuses %j with 400',
    async (body) => {
      const res = await request(h.app).post('/api/auth/send-code').send(body);
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
    },
  );

  it('answers 502, not 200, when the email cannot be sent', async () => {
    h.resend.failNextRequest();
    const res = await sendCode('bounce@example.com');
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/could not be sent/);
  });

  it('answers 502 when Resend accepts the request and never answers (RESEND_TIMEOUT_MS)', async () => {
    h.resend.stallNextRequest();
    const res = await sendCode('hung@example.com');
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/could not be sent/);
  });

  it('allows 3 per minute per email, then 429 with Retry-After and RateLimit headers', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await sendCode('limited@example.com');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('3');
    }
    const limited = await sendCode('limited@example.com');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect((await sendCode('other@example.com')).status).toBe(200);
  });
});

describe('verify', () => {
  it('logs in with the code, creates the user and sets the session cookie', async () => {
    await sendCode('bob.smith@example.com').expect(200);
    const res = await verify(
      'bob.smith@example.com',
      h.resend.lastCodeFor('bob.smith@example.com'),
    );
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      id: expect.any(String),
      email: 'bob.smith@example.com',
      username: 'bob_smith',
    });
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^sn_token=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('marks the cookie Secure when the trusted gateway says the request was HTTPS', async () => {
    await sendCode('secure@example.com').expect(200);
    const res = await verify('secure@example.com', h.resend.lastCodeFor('secure@example.com')).set(
      'X-Forwarded-Proto',
      'https',
    );
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']![0]).toMatch(/; Secure/);
  });

  it('is single use', async () => {
    await sendCode('once@example.com').expect(200);
    const code = h.resend.lastCodeFor('once@example.com');
    expect((await verify('once@example.com', code)).status).toBe(200);
    const again = await verify('once@example.com', code);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'Invalid or expired code' });
  });

  it('refuses an expired code', async () => {
    await sendCode('late@example.com').expect(200);
    await h.db.loginCode.update({
      where: { email: 'late@example.com' },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const res = await verify('late@example.com', h.resend.lastCodeFor('late@example.com'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid or expired code' });
  });

  it('kills the code after 5 wrong attempts', async () => {
    await sendCode('guess@example.com').expect(200);
    const code = h.resend.lastCodeFor('guess@example.com');
    for (let i = 0; i < 5; i++)
      expect((await verify('guess@example.com', wrong(code))).status).toBe(400);
    // Reset the 5/min verify limit so the next answer shows the code's state, not the limit.
    await h.redis.del(`${h.redisPrefix}rl:auth-verify:guess@example.com`);
    const res = await verify('guess@example.com', code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid or expired code' });
  });

  it('counts wrong attempts exactly under concurrency', async () => {
    await sendCode('race@example.com').expect(200);
    const code = h.resend.lastCodeFor('race@example.com');
    await Promise.all(Array.from({ length: 5 }, () => verify('race@example.com', wrong(code))));
    const row = await h.db.loginCode.findUnique({ where: { email: 'race@example.com' } });
    expect(row!.attempts).toBe(5);
  });

  it('invalidates the earlier code when a new one is sent', async () => {
    await sendCode('twice@example.com').expect(200);
    const first = h.resend.lastCodeFor('twice@example.com');
    await sendCode('twice@example.com').expect(200);
    const second = h.resend.lastCodeFor('twice@example.com');
    if (first !== second) expect((await verify('twice@example.com', first)).status).toBe(400);
    expect((await verify('twice@example.com', second)).status).toBe(200);
  });

  it('allows 5 verifications per minute per email, then 429', async () => {
    for (let i = 0; i < 5; i++)
      expect((await verify('flood@example.com', '000000')).status).toBe(400);
    const limited = await verify('flood@example.com', '000000');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.headers['ratelimit-limit']).toBe('5');
  });

  it.each([
    [{ email: 'a@example.com' }],
    [{ email: 'a@example.com', code: '12345' }],
    [{ email: 'a@example.com', code: 'abcdef' }],
  ])('refuses %j with 400', async (body) => {
    expect((await request(h.app).post('/api/auth/verify').send(body)).status).toBe(400);
  });

  it('gives a second user with the same email name a unique username', async () => {
    const a = await h.login('carol@one.example');
    const b = await h.login('carol@two.example');
    expect(a.user.username).toBe('carol');
    expect(b.user.username).toBe('carol-2');
  });

  it('logs an existing user back in as the same user', async () => {
    const first = await h.login('dave@example.com');
    const second = await h.login('dave@example.com');
    expect(second.user).toEqual(first.user);
  });
});
