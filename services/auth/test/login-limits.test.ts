// Per-client login limits (LOGIN_LIMITS in @svc/types): one client network may ask codes
// for 30 different addresses an hour and fail 60 verifications an hour across all
// addresses. The per-address limits stay as documented (login.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { LOGIN_LIMITS } from '@svc/types';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const ADDRESSES = LOGIN_LIMITS.sendCode.also[0].limit;
const FAILURES = LOGIN_LIMITS.verify.also[0].limit;

const sendCode = (ip: string, email: string) =>
  request(h.app).post('/api/auth/send-code').set('X-Forwarded-For', ip).send({ email });
const verify = (ip: string, email: string, code: string) =>
  request(h.app).post('/api/auth/verify').set('X-Forwarded-For', ip).send({ email, code });
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('codes for different addresses per client network', () => {
  it(`mails codes to ${ADDRESSES} different addresses an hour, then 429 without mailing`, async () => {
    const ip = '198.51.100.10';
    for (let i = 0; i < ADDRESSES; i++) {
      expect((await sendCode(ip, `spray${i}@example.com`)).status).toBe(200);
    }
    const mailed = h.resend.sent.length;
    const refused = await sendCode(ip, 'one-too-many@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(refused.headers['ratelimit-limit']).toBe(String(ADDRESSES));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(h.resend.sent.length).toBe(mailed);
    expect(await h.db.loginCode.findUnique({ where: { email: 'one-too-many@example.com' } })).toBeNull();

    // An address already counted this hour may ask again (within its own 3 a minute).
    expect((await sendCode(ip, 'spray0@example.com')).status).toBe(200);
    // Another client is not affected.
    expect((await sendCode('198.51.100.11', 'one-too-many@example.com')).status).toBe(200);
  });

  it('counts an IPv6 client by its /64, so rotating addresses inside it does not help', async () => {
    for (let i = 0; i < ADDRESSES; i++) {
      const ip = `2001:db8:aa:1::${(i + 1).toString(16)}`;
      expect((await sendCode(ip, `v6-${i}@example.com`)).status).toBe(200);
    }
    expect((await sendCode('2001:db8:aa:1:ffff::1', 'v6-last@example.com')).status).toBe(429);
    expect((await sendCode('2001:db8:aa:2::1', 'v6-last@example.com')).status).toBe(200);
  });

  it('holds under a burst of parallel requests', async () => {
    const ip = '198.51.100.20';
    const answers = await Promise.all(
      Array.from({ length: ADDRESSES + 20 }, (_, i) => sendCode(ip, `burst${i}@example.com`)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(ADDRESSES);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(20);
  });
});

describe('failed verifications per client network', () => {
  it(`refuses every attempt after ${FAILURES} failures an hour across addresses, even a right code`, async () => {
    const ip = '198.51.100.30';
    const victims = Array.from({ length: 15 }, (_, i) => `victim${i}@example.com`);
    for (const email of victims) await sendCode('198.51.100.31', email).expect(200);
    // 4 wrong guesses per address stays under the per-address 5 a minute.
    let failures = 0;
    for (const email of victims) {
      const code = h.resend.lastCodeFor(email);
      for (let i = 0; i < 4 && failures < FAILURES; i++, failures++) {
        expect((await verify(ip, email, wrong(code))).status).toBe(400);
      }
    }
    expect(failures).toBe(FAILURES);
    await sendCode('198.51.100.31', 'late@example.com').expect(200);
    const right = h.resend.lastCodeFor('late@example.com');
    const refused = await verify(ip, 'late@example.com', right);
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe(String(FAILURES));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(refused.headers['set-cookie']).toBeUndefined();
    // The code was not spent: the same person succeeds from another network.
    expect((await verify('198.51.100.32', 'late@example.com', right)).status).toBe(200);
  });

  it('does not count successful logins', async () => {
    const ip = '198.51.100.40';
    for (let i = 0; i < FAILURES + 5; i++) {
      const email = `ok${i}@example.com`;
      await sendCode(`203.0.113.${i % 200}`, email).expect(200);
      expect((await verify(ip, email, h.resend.lastCodeFor(email))).status).toBe(200);
    }
  });

  it('parallel wrong guesses cannot go past the limit', async () => {
    const ip = '198.51.100.50';
    const emails = Array.from({ length: 20 }, (_, i) => `par${i}@example.com`);
    for (const email of emails) await sendCode('198.51.100.51', email).expect(200);
    const guesses = emails.flatMap((email) =>
      Array.from({ length: 4 }, () => verify(ip, email, wrong(h.resend.lastCodeFor(email)))),
    );
    const answers = await Promise.all(guesses);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(FAILURES);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(80 - FAILURES);
  });
});
