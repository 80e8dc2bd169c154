// The limiters read the endpoint catalogue: with other numbers in the catalogue, the
// service enforces those (RateLimit-Limit), so no literal in the routes can drift from it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { overrideCatalogueLimits } from '@svc/service-kit/testing';
import { startHarness } from './harness.js';

const CHANGED: Record<string, number> = { postChatMessage: 4, likeChatMessage: 6 };
let restore: () => void;
let h: Awaited<ReturnType<typeof startHarness>>;

beforeAll(async () => {
  restore = overrideCatalogueLimits(
    Object.fromEntries(Object.entries(CHANGED).map(([id, limit]) => [id, { limit }])),
  );
  h = await startHarness();
});
afterAll(async () => {
  restore();
  await h.close();
});

describe('chat limits come from the endpoint catalogue', () => {
  it('posts and likes are limited by the numbers the catalogue holds', async () => {
    const post = await request(h.app).post('/api/messages').send({});
    expect(post.headers['ratelimit-limit']).toBe('4');
    const like = await request(h.app).post('/api/messages/no-such-message/like');
    expect(like.headers['ratelimit-limit']).toBe('6');
  });
});
