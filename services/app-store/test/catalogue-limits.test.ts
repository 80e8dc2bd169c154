// The limiters read the endpoint catalogue: with other numbers in the catalogue, the
// service enforces those (RateLimit-Limit), so no literal can drift from it; the app's
// rateLimitScale still multiplies them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { overrideCatalogueLimits } from '@svc/service-kit/testing';
import { AUTHENTICATED_OPERATIONS, PUBLIC_OPERATIONS } from '../src/routes/rate-limits.js';
import { startHarness, type Harness } from './harness.js';

const CHANGED: Record<string, number> = {
  ...Object.fromEntries(PUBLIC_OPERATIONS.map((id) => [id, 150])),
  ...Object.fromEntries(AUTHENTICATED_OPERATIONS.map((id) => [id, 40])),
  submitApp: 3,
};
let restore: () => void;
let h: Harness;
let scaled: Harness;

beforeAll(async () => {
  restore = overrideCatalogueLimits(
    Object.fromEntries(Object.entries(CHANGED).map(([id, limit]) => [id, { limit }])),
  );
  h = await startHarness();
  scaled = await startHarness({ rateLimitScale: 10 });
});
afterAll(async () => {
  restore();
  await h.close();
  await scaled.close();
});

describe('app-store limits come from the endpoint catalogue', () => {
  it('the public, authenticated and submit buckets hold the numbers the catalogue holds', async () => {
    const limitOf = (res: { headers: Record<string, string> }) => res.headers['ratelimit-limit'];
    expect(limitOf(await request(h.app).get('/api/v1/categories'))).toBe('150');
    const dev = h.user('limits');
    expect(limitOf(await request(h.app).get('/api/v1/me').set('Cookie', dev.cookie))).toBe('40');
    const submitted = await h.submit(dev, { slug: 'catalogue-limit', name: 'Limit', url: 'https://limit.example.com' });
    expect(submitted.status).toBe(201);
    expect(limitOf(submitted)).toBe('3');
    // The scale setting multiplies the catalogue's numbers.
    expect(limitOf(await request(scaled.app).get('/api/v1/categories'))).toBe('1500');
  });
});
