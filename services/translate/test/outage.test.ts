// Redis goes away behind a cuttable proxy. Translation keeps working: the cache is
// skipped (never a 503 for an optimisation) and the rate limit falls back to the kit's
// in-memory insurance limiter; when Redis returns, the cache is used again by itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { createLogger, createRedis, waitForRedis, type Redis } from '@svc/service-kit';
import {
  deleteRedisPrefix,
  startTcpProxy,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TcpProxy,
} from '@svc/service-kit/testing';
import { createAnthropicTranslator } from '../src/clients/ai-translator.js';
import { buildApp } from '../src/app.js';
import { translationCacheKey } from '../src/store/translation-cache.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

const logger = createLogger('translate-outage-test', 'silent');
const prefix = testRedisPrefix();
let proxy: TcpProxy;
let viaProxy: Redis;
let direct: Redis;
let fake: FakeAnthropic;
let app: Express;

beforeAll(async () => {
  proxy = await startTcpProxy(
    Number(new URL(TEST_REDIS_URL).port || 6379),
    new URL(TEST_REDIS_URL).hostname,
  );
  viaProxy = createRedis(`redis://127.0.0.1:${proxy.port}`, logger, { name: 'translate-outage' });
  direct = createRedis(TEST_REDIS_URL, logger, { name: 'translate-outage-direct' });
  await Promise.all([waitForRedis(viaProxy), waitForRedis(direct)]);
  fake = await startFakeAnthropic();
  app = buildApp({
    logger,
    redis: viaProxy,
    redisPrefix: prefix,
    translator: createAnthropicTranslator({
      apiKey: 'sk-test',
      baseURL: fake.baseURL,
      model: 'claude-test-model',
      timeoutMs: 5_000,
      maxRetries: 0,
    }),
  });
});

afterAll(async () => {
  await fake?.close();
  viaProxy?.disconnect();
  await proxy?.close();
  if (direct) await deleteRedisPrefix(direct, prefix);
  direct?.disconnect();
});

const translate = (text: string, ip = '198.51.100.7') =>
  request(app).post('/api/translate').set('X-Forwarded-For', ip).send({ text, targetLang: 'fr' });

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}

describe('Redis outage', () => {
  it('translates without the cache while Redis is down and uses it again once Redis is back', async () => {
    const before = await translate('The cache works while Redis is up.');
    expect(before.status).toBe(200);
    expect(
      await direct.exists(translationCacheKey(prefix, 'The cache works while Redis is up.', 'fr')),
    ).toBe(1);

    await proxy.cut();
    const text = 'Redis is down but translation still works.';
    const down = await translate(text);
    expect(down.status).toBe(200);
    expect(down.body).toEqual({ translated: `[French] ${text}`, detectedLang: 'en' });
    // Nothing cached, so the same request goes to the AI again.
    const downAgain = await translate(text);
    expect(downAgain.status).toBe(200);
    expect(fake.requests).toHaveLength(3);
    // Still ready: a Redis outage must not take every translate pod out of service.
    expect((await request(app).get('/readyz')).status).toBe(200);

    // The insurance limiter still counts: 20 per minute per IP.
    const ip = '198.51.100.99';
    for (let i = 0; i < 20; i++)
      expect((await translate('Bonjour à tous, comment allez-vous ?', ip)).status).toBe(200);
    const limited = await translate('Bonjour à tous, comment allez-vous ?', ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });

    await proxy.restore();
    await eventually(async () => viaProxy.status === 'ready');
    const back = 'Redis is back and caching again.';
    expect((await translate(back)).status).toBe(200);
    expect((await translate(back)).status).toBe(200);
    expect(fake.requests).toHaveLength(4);
    expect(await direct.exists(translationCacheKey(prefix, back, 'fr'))).toBe(1);
  }, 30_000);
});
