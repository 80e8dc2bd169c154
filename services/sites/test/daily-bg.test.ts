// GET /api/daily-bg and /api/daily-bg/image against a loopback fake of the provider (Bing
// HPImageArchive JSON shape): cached 6 h in Redis, last good answer while the provider is
// down, the bundled default when none ever came.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { ServerResponse } from 'node:http';
import { startHarness, type Harness } from './api-harness.js';
import { dailyBgKeys } from '../src/clients/daily-bg-source.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
let providerUp = true;
function provider(title: string) {
  return (req: { url?: string }, res: ServerResponse) => {
    if (!providerUp) {
      res.statusCode = 503;
      res.end();
      return;
    }
    if (req.url!.startsWith('/HPImageArchive.aspx')) {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          images: [{ url: '/th?id=OHR.Today_1920x1080.jpg', copyright: '© Photographer', title }],
        }),
      );
    } else if (req.url!.startsWith('/th?id=OHR.Today')) {
      res.setHeader('content-type', 'image/jpeg');
      res.end(JPEG);
    } else {
      res.statusCode = 404;
      res.end();
    }
  };
}
const freshKey = () => dailyBgKeys(h.redisPrefix).fresh;
const failedKey = () => dailyBgKeys(h.redisPrefix).failed;

describe('daily background', () => {
  it('serves the bundled default while the provider has never answered', async () => {
    providerUp = false;
    h.provider.setHandler(provider('unused'));
    const res = await request(h.app).get('/api/daily-bg');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      imageUrl: '/api/daily-bg/image',
      videoUrl: null,
      copyright: '',
      title: 'Default background',
    });
    const image = await request(h.app).get('/api/daily-bg/image');
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect((image.body as Buffer).subarray(1, 4).toString()).toBe('PNG');
  });

  it('fetches the provider once, caches the answer and the image bytes for 6 hours', async () => {
    await h.redis.del(failedKey());
    providerUp = true;
    h.provider.setHandler(provider('Morning fox'));
    const before = h.provider.requests.length;
    const res = await request(h.app).get('/api/daily-bg');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      imageUrl: '/api/daily-bg/image',
      videoUrl: null,
      copyright: '© Photographer',
      title: 'Morning fox',
    });
    const image = await request(h.app).get('/api/daily-bg/image');
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect(image.headers['cache-control']).toBe('public, max-age=21600');
    expect(Buffer.compare(image.body as Buffer, JPEG)).toBe(0);
    const ttl = await h.redis.ttl(freshKey());
    expect(ttl).toBeGreaterThan(6 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(6 * 3600);
    // One JSON and one image request, then everything comes from Redis.
    await request(h.app).get('/api/daily-bg');
    await request(h.app).get('/api/daily-bg/image');
    expect(h.provider.requests.length - before).toBe(2);
  });

  it('serves the last good answer when the cache expired and the provider is down', async () => {
    providerUp = false;
    await h.redis.del(freshKey());
    const res = await request(h.app).get('/api/daily-bg');
    expect(res.status).toBe(200);
    expect(res.body.title).toBe('Morning fox');
    const image = await request(h.app).get('/api/daily-bg/image');
    expect(Buffer.compare(image.body as Buffer, JPEG)).toBe(0);
    // A failure is remembered for a while, so requests do not wait on a dead provider.
    expect(await h.redis.ttl(failedKey())).toBeGreaterThan(0);
  });

  it('picks up a new answer once the cache expires and the provider is back', async () => {
    providerUp = true;
    h.provider.setHandler(provider('Evening owl'));
    await h.redis.del(freshKey(), failedKey());
    expect((await request(h.app).get('/api/daily-bg')).body.title).toBe('Evening owl');
  });

  it('ignores an answer whose image points off the provider origin (no open proxy)', async () => {
    const before = h.provider.requests.length;
    h.provider.setHandler((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          images: [{ url: 'http://169.254.169.254/latest/meta-data/', title: 'evil' }],
        }),
      );
    });
    await h.redis.del(freshKey(), failedKey());
    const res = await request(h.app).get('/api/daily-bg');
    expect(res.body.title).toBe('Evening owl');
    expect(h.provider.requests.length - before).toBe(1);
  });
});
