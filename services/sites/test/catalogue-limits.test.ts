// The limiters read the endpoint catalogue: with other numbers in the catalogue, the
// service enforces those (RateLimit-Limit, the boost allowance), so no literal in the
// routes can drift from it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RateLimit } from '@svc/types';
import { overrideCatalogueLimits } from '@svc/service-kit/testing';
import { dailyBoostLimit } from '../src/domain/boost-allowance.js';
import { startHarness, type Harness } from './api-harness.js';

const CHANGED: Record<string, Partial<RateLimit>> = {
  submitSite: { limit: 4 },
  claimSite: { limit: 6 },
  recordClick: { limit: 7 },
  createBookmark: { limit: 8 },
  deleteBookmark: { limit: 8 },
  boostSite: { limit: 2, session: { limit: 5, key: 'user' } },
};
let restore: () => void;
let h: Harness;

beforeAll(async () => {
  restore = overrideCatalogueLimits(CHANGED);
  h = await startHarness();
});
afterAll(async () => {
  restore();
  await h.close();
});

describe('sites limits come from the endpoint catalogue', () => {
  it('submit, claim, clicks and bookmark writes are limited by the numbers the catalogue holds', async () => {
    const limitOf = (res: { headers: Record<string, string> }) => res.headers['ratelimit-limit'];
    expect(limitOf(await request(h.app).post('/api/sites').send({}))).toBe('4');
    expect(limitOf(await request(h.app).post('/api/sites/no-such-site/claim'))).toBe('6');
    expect(limitOf(await request(h.app).post('/api/clicks/no-such-site'))).toBe('7');
    const cookie = h.sessionCookie({ id: 'catalogue-limits-user' });
    expect(limitOf(await request(h.app).post('/api/bookmarks').set('Cookie', cookie).send({}))).toBe('8');
    expect(
      limitOf(await request(h.app).delete('/api/bookmarks/no-such-site').set('Cookie', cookie)),
    ).toBe('8');
  });

  it('the daily boost allowance is the catalogue one, for visitors and with a session', () => {
    expect(dailyBoostLimit(false)).toBe(2);
    expect(dailyBoostLimit(true)).toBe(5);
  });
});
