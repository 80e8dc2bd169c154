// The documented limits with their real values: 200/min per IP (public), 60/min per user
// or per key (authenticated), 5/hour submissions per user; 429 JSON with headers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function expect429(res: request.Response, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: 'Too many requests' });
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
}

describe('rate limits', () => {
  it('public endpoints: 200 per minute per IP, shared by listing, detail and categories', async () => {
    const first = await request(h.app).get('/api/v1/categories');
    expect(first.headers['ratelimit-limit']).toBe('200');
    expect(first.headers['ratelimit-remaining']).toBe('199');
    for (let i = 0; i < 199; i++)
      await request(h.app).get('/api/v1/apps').query({ limit: 1 }).expect(200);
    expect429(await request(h.app).get('/api/v1/apps'), 200);
    expect429(await request(h.app).get('/api/v1/apps/anything'), 200);
    // Another client IP (as the gateway forwards it) has its own budget.
    const other = await request(h.app).get('/api/v1/apps').set('X-Forwarded-For', '203.0.113.9');
    expect(other.status).toBe(200);
  });

  it('authenticated endpoints: 60 per minute per user, and per key', async () => {
    const u = h.user();
    for (let i = 0; i < 60; i++)
      await request(h.app).get('/api/v1/me').set('Cookie', u.cookie).expect(200);
    expect429(await request(h.app).get('/api/v1/me/apps').set('Cookie', u.cookie), 60);
    // Another user is not affected.
    await request(h.app).get('/api/v1/me').set('Cookie', h.user().cookie).expect(200);

    const dev = h.user();
    await h.seedApp(dev, { slug: 'limited-app' });
    const { key } = await h.createKey(dev, 'limited-app');
    for (let i = 0; i < 60; i++)
      await request(h.app).get('/api/v1/me').set('Authorization', `Bearer ${key}`).expect(200);
    expect429(await request(h.app).get('/api/v1/me').set('Authorization', `Bearer ${key}`), 60);
    // The key's budget is its own: the developer's session still has its 60.
    await request(h.app).get('/api/v1/me').set('Cookie', dev.cookie).expect(200);
  });

  it('API keys: 30 failed authentications per 10 minutes per IP, then 429 before any look-up', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'guarded-app' });
    const { key } = await h.createKey(dev, 'guarded-app');
    const ip = '203.0.113.77';
    const bad = `${key.slice(0, -4)}zzzz`;
    for (let i = 0; i < 30; i++) {
      const res = await request(h.app)
        .get('/api/v1/me')
        .set('X-Forwarded-For', ip)
        .set('Authorization', `Bearer ${bad}`);
      expect(res.status).toBe(401);
    }
    const limited = await request(h.app)
      .get('/api/v1/me')
      .set('X-Forwarded-For', ip)
      .set('Authorization', `Bearer ${bad}`);
    expect429(limited, 30);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(600);
    // Even the right key is refused from that address (guessing learns nothing more)...
    const right = await request(h.app)
      .get('/api/v1/me')
      .set('X-Forwarded-For', ip)
      .set('Authorization', `Bearer ${key}`);
    expect(right.status).toBe(429);
    // ...but works from another one, and sessions from the same one are not affected.
    await request(h.app)
      .get('/api/v1/me')
      .set('X-Forwarded-For', '203.0.113.78')
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    await request(h.app)
      .get('/api/v1/me')
      .set('X-Forwarded-For', ip)
      .set('Cookie', dev.cookie)
      .expect(200);
  });

  it('submissions: 5 per hour per user (invalid drafts do not count)', async () => {
    const u = h.user();
    await request(h.app)
      .post('/api/v1/apps')
      .set('Cookie', u.cookie)
      .send({ slug: 'x' })
      .expect(400);
    for (let i = 0; i < 5; i++) {
      const res = await h.submit(u, {
        slug: `limit-sub-${i}`,
        name: 'A',
        url: 'https://a.example.com',
      });
      expect(res.status).toBe(201);
      expect(res.headers['ratelimit-limit']).toBe('5');
    }
    const sixth = await h.submit(u, {
      slug: 'limit-sub-6',
      name: 'A',
      url: 'https://a.example.com',
    });
    expect429(sixth, 5);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(60);
    expect(await h.db.app.count({ where: { slug: 'limit-sub-6' } })).toBe(0);
  });
});
