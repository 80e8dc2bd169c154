// The limiter reads the endpoint catalogue: with another number in the catalogue, the
// service enforces that one (RateLimit-Limit); the benchmark setting still replaces it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ENDPOINTS } from '@svc/types';
import { createLogger, createRedis, waitForRedis, type Redis } from '@svc/service-kit';
import { TEST_REDIS_URL, deleteRedisPrefix, testRedisPrefix } from '@svc/service-kit/testing';
import { buildApp } from '../src/app.js';

const entry = ENDPOINTS.find((e) => e.operationId === 'translateText')!;
const saved = entry.rateLimit;
const logger = createLogger('translate-test', 'silent');
const prefix = testRedisPrefix();
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'translate-catalogue-test' });
  await waitForRedis(redis);
  entry.rateLimit = { ...saved!, limit: 7 };
});
afterAll(async () => {
  entry.rateLimit = saved;
  await deleteRedisPrefix(redis, prefix);
  redis.disconnect();
});

describe('the translate limit comes from the endpoint catalogue', () => {
  it('enforces the catalogue number, unless TRANSLATE_RATE_LIMIT_PER_MINUTE replaces it', async () => {
    const app = buildApp({ logger, redis, redisPrefix: prefix });
    const res = await request(app).post('/api/translate').set('X-Forwarded-For', '203.0.113.200').send({});
    expect(res.headers['ratelimit-limit']).toBe('7');
    const bench = buildApp({ logger, redis, redisPrefix: `${prefix}bench:`, rateLimitPerMinute: 50 });
    const benched = await request(bench).post('/api/translate').set('X-Forwarded-For', '203.0.113.201').send({});
    expect(benched.headers['ratelimit-limit']).toBe('50');
  });
});
