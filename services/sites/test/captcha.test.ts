// CAPTCHA on POST /api/sites when CAPTCHA_SECRET_KEY is set: the token is checked with a
// loopback fake of Turnstile's siteverify (form post of secret, response, remoteip).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ captchaSecret: 'turnstile-secret' });
});
afterAll(async () => {
  await h?.close();
});

const submit = (body: object, ip = nextIp()) =>
  request(h.app).post('/api/sites').set('X-Forwarded-For', ip).send(body);

describe('CAPTCHA on POST /api/sites', () => {
  it('accepts a token the verifier accepts, sending secret, token and client IP', async () => {
    const res = await submit(
      { url: 'https://captcha-ok.example', captchaToken: 'good-token' },
      '198.51.100.200',
    );
    expect(res.status).toBe(201);
    const call = h.captchaVerifier.requests.at(-1)!;
    expect(call.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(call.body))).toEqual({
      secret: 'turnstile-secret',
      response: 'good-token',
      remoteip: '198.51.100.200',
    });
  });

  it.each([
    ['a missing token', { url: 'https://captcha-1.example' }],
    ['a rejected token', { url: 'https://captcha-2.example', captchaToken: 'bad-token' }],
  ])('answers 403 for %s and stores nothing', async (_label, body) => {
    const res = await submit(body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Missing or invalid CAPTCHA token' });
    expect(await h.db.site.count({ where: { url: body.url } })).toBe(0);
  });

  it('an idempotent retry gets the first answer without another CAPTCHA (its token was single-use)', async () => {
    const ip = nextIp();
    const send = (body: object) =>
      request(h.app)
        .post('/api/sites')
        .set('X-Forwarded-For', ip)
        .set('Idempotency-Key', 'captcha-retry-1')
        .send(body);
    const first = await send({ url: 'https://captcha-retry.example', captchaToken: 'good-token' });
    expect(first.status).toBe(201);
    const calls = h.captchaVerifier.requests.length;
    const retry = await send({ url: 'https://captcha-retry.example', captchaToken: 'good-token' });
    const noToken = await send({ url: 'https://captcha-retry.example' });
    expect([retry.status, noToken.status]).toEqual([201, 201]);
    expect(retry.text).toBe(first.text);
    expect(noToken.text).toBe(first.text);
    expect(h.captchaVerifier.requests.length).toBe(calls);
    // A key that has no answer yet is a new request: the CAPTCHA applies.
    const fresh = await request(h.app)
      .post('/api/sites')
      .set('X-Forwarded-For', ip)
      .set('Idempotency-Key', 'captcha-retry-2')
      .send({ url: 'https://captcha-retry.example' });
    expect(fresh.status).toBe(403);
  });

  it('checks the URL before spending the token on the verifier', async () => {
    const before = h.captchaVerifier.requests.length;
    expect((await submit({ url: 'ftp://x.example', captchaToken: 'good-token' })).status).toBe(400);
    expect(h.captchaVerifier.requests.length).toBe(before);
  });

  it('answers 503 (not 2xx, not 500) while the verifier is down or answers garbage', async () => {
    h.captchaVerifier.setHandler((_req, res) => {
      res.statusCode = 502;
      res.end('bad gateway');
    });
    const res = await submit({ url: 'https://captcha-3.example', captchaToken: 'good-token' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'Service temporarily unavailable' });
    h.captchaVerifier.setHandler((_req, res) => res.end('{not json'));
    expect(
      (await submit({ url: 'https://captcha-4.example', captchaToken: 'good-token' })).status,
    ).toBe(503);
  });
});
