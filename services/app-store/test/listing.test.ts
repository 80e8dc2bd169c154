// GET /api/v1/apps, GET /api/v1/apps/{slug} and GET /api/v1/categories on the real app.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { APP_CATEGORIES, AppDetailResponse, AppListResponse } from '@svc/types';
import { listingPageQuery } from '../src/domain/listing-query.js';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let alice: TestUser;
beforeAll(async () => {
  h = await startHarness();
  alice = h.user('alice');
});
afterAll(() => h.close());

const LISTING_FIELDS = [
  'app_type',
  'author_name',
  'category',
  'description',
  'downloads',
  'has_icon',
  'icon_gradient_from',
  'icon_gradient_to',
  'id',
  'name',
  'open_mode',
  'slug',
  'status',
  'url',
];

const list = (query: Record<string, string | number> = {}) =>
  request(h.app).get('/api/v1/apps').query(query);
const slugs = (res: { body: { apps: Array<{ slug: string }> } }) =>
  res.body.apps.map((a) => a.slug);

describe('GET /api/v1/apps', () => {
  beforeAll(async () => {
    const day = (n: number) => new Date(Date.UTC(2026, 0, n));
    await h.seedApp(alice, {
      slug: 'top-game',
      name: 'Top Game',
      category: 'games',
      downloads: 90,
      createdAt: day(1),
    });
    await h.seedApp(alice, {
      slug: 'new-tool',
      name: 'New Tool',
      downloads: 50,
      createdAt: day(5),
    });
    await h.seedApp(alice, {
      slug: 'old-tool',
      name: 'Old Tool',
      downloads: 50,
      createdAt: day(2),
    });
    await h.seedApp(alice, {
      slug: 'wallet-dapp',
      name: 'Wallet',
      category: 'defi',
      appType: 'dapp',
      downloads: 10,
      createdAt: day(3),
    });
    await h.seedApp(alice, {
      slug: 'banned-app',
      name: 'Banned Tool',
      status: 'blocked',
      downloads: 1000,
      createdAt: day(4),
    });
    await h.seedApp(alice, {
      slug: 'zh-app',
      name: '在线计算器',
      description: '简单好用的科学计算工具',
      techTags: ['React', 'WebAssembly'],
      downloads: 5,
      createdAt: day(6),
    });
    await h.seedApp(alice, {
      slug: 'ja-app',
      name: 'カレンダー',
      description: '日本語の予定管理アプリ',
      downloads: 4,
      createdAt: day(7),
    });
    await h.seedApp(alice, {
      slug: 'ko-app',
      name: '메모장',
      description: '간단한 메모 앱입니다',
      downloads: 3,
      createdAt: day(8),
    });
  });

  it('lists approved apps only, by downloads then newest, with exactly the listing fields', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(AppListResponse.parse(res.body)).toBeTruthy();
    expect(slugs(res)).toEqual([
      'top-game',
      'new-tool',
      'old-tool',
      'wallet-dapp',
      'zh-app',
      'ja-app',
      'ko-app',
    ]);
    for (const app of res.body.apps) expect(Object.keys(app).sort()).toEqual(LISTING_FIELDS);
    expect(res.body.apps[0]).toMatchObject({
      slug: 'top-game',
      status: 'approved',
      category: 'games',
      app_type: 'web',
      open_mode: 'iframe',
      downloads: 90,
      author_name: alice.username,
    });
    expect(res.body.meta).toEqual({ limit: 50, offset: 0, count: 7, total: 7, total_exact: true, has_more: false });
    expect(res.headers['ratelimit-limit']).toBe('200');
  });

  it('filters by category and app_type', async () => {
    expect(slugs(await list({ category: 'games' }))).toEqual(['top-game']);
    expect(slugs(await list({ category: 'tools' }))).toEqual([
      'new-tool',
      'old-tool',
      'zh-app',
      'ja-app',
      'ko-app',
    ]);
    expect(slugs(await list({ app_type: 'dapp' }))).toEqual(['wallet-dapp']);
    expect(slugs(await list({ category: 'defi', app_type: 'web' }))).toEqual([]);
    expect((await list({ category: 'nft' })).body.meta).toEqual({
      limit: 50,
      offset: 0,
      count: 0,
      total: 0,
      total_exact: true,
      has_more: false,
    });
  });

  it('pages with limit and offset in a stable order, total counting every match, has_more exact', async () => {
    const first = await list({ limit: 3 });
    const second = await list({ limit: 3, offset: 3 });
    const third = await list({ limit: 3, offset: 6 });
    expect([...slugs(first), ...slugs(second), ...slugs(third)]).toEqual(slugs(await list()));
    const exact = { total: 7, total_exact: true };
    expect(first.body.meta).toEqual({ limit: 3, offset: 0, count: 3, ...exact, has_more: true });
    expect(second.body.meta).toEqual({ limit: 3, offset: 3, count: 3, ...exact, has_more: true });
    expect(third.body.meta).toEqual({ limit: 3, offset: 6, count: 1, ...exact, has_more: false });
    // Exactly the last app at the end of a page: nothing follows.
    expect((await list({ limit: 1, offset: 6 })).body.meta.has_more).toBe(false);
    expect((await list({ limit: 1, offset: 5 })).body.meta.has_more).toBe(true);
    expect((await list({ offset: 100 })).body.meta).toEqual({
      limit: 50,
      offset: 100,
      count: 0,
      ...exact,
      has_more: false,
    });
    expect((await list({ limit: 100 })).status).toBe(200);
  });

  it("finds a page's ids in the filter's listing index alone, whatever the offset", async () => {
    // Planner costs favour a scan on a few rows: turned off, what remains shows the index can
    // answer the ids by itself (an OFFSET then skips index entries, not table rows).
    const client = await h.listingPool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_bitmapscan = off');
      for (const [filter, index] of [
        [{}, 'apps_listing_idx'],
        [{ category: 'games' as const }, 'apps_listing_category_idx'],
        [{ app_type: 'pwa' as const }, 'apps_listing_app_type_idx'],
      ] as const) {
        const q = listingPageQuery(filter, 51, 5);
        const plan = (await client.query(`EXPLAIN ${q.sql}`, q.params)).rows.map((r) => r['QUERY PLAN']);
        expect(plan.join('\n')).toContain(`Index Only Scan using ${index} on apps`);
      }
    } finally {
      await client.query('RESET ALL');
      client.release();
    }
  });

  it('searches name, description and tech_tags, in English, Chinese, Japanese and Korean', async () => {
    expect(slugs(await list({ q: 'tool' }))).toEqual(['new-tool', 'old-tool']);
    expect(slugs(await list({ q: 'TOOL old' }))).toEqual(['old-tool']);
    expect(slugs(await list({ q: 'webassembly' }))).toEqual(['zh-app']);
    expect(slugs(await list({ q: '计算' }))).toEqual(['zh-app']);
    expect(slugs(await list({ q: '科学计算' }))).toEqual(['zh-app']);
    expect(slugs(await list({ q: '在线' }))).toEqual(['zh-app']);
    expect(slugs(await list({ q: 'カレンダー' }))).toEqual(['ja-app']);
    expect(slugs(await list({ q: '予定' }))).toEqual(['ja-app']);
    expect(slugs(await list({ q: '메모' }))).toEqual(['ko-app']);
    expect(slugs(await list({ q: '간단한' }))).toEqual(['ko-app']);
    expect(slugs(await list({ q: '计器' }))).toEqual([]);
    // A blocked app is never found.
    expect(slugs(await list({ q: 'banned' }))).toEqual([]);
    const res = await list({ q: 'tool', category: 'tools', limit: 1 });
    expect(res.body.meta).toEqual({ limit: 1, offset: 0, count: 1, total: 2, total_exact: true, has_more: true });
    // Blank or punctuation-only queries: blank means no search, punctuation finds nothing.
    expect((await list({ q: '   ' })).body.meta.total).toBe(7);
    expect((await list({ q: '!!!' })).body.meta.total).toBe(0);
  });

  it('reflects a new submission in the total at once', async () => {
    const before = (await list()).body.meta.total;
    const bob = h.user('bob');
    await h
      .submit(bob, { slug: 'fresh-app', name: 'Fresh', url: 'https://fresh.example.com' })
      .expect(201);
    expect((await list()).body.meta.total).toBe(before + 1);
    expect(slugs(await list({ q: 'fresh' }))).toEqual(['fresh-app']);
  });

  it.each([
    [{ limit: 0 }],
    [{ limit: 101 }],
    [{ limit: 'ten' }],
    [{ offset: -1 }],
    [{ offset: 1.5 }],
    [{ category: 'weather' }],
    [{ app_type: 'native' }],
    [{ q: 'x'.repeat(201) }],
  ])('answers 400 JSON for the invalid query %j', async (query) => {
    const res = await list(query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });

  it('answers 400 for a repeated filter parameter', async () => {
    const res = await request(h.app).get('/api/v1/apps?category=games&category=tools');
    expect(res.status).toBe(400);
  });
});

describe('GET /api/v1/apps/{slug}', () => {
  it('returns the full detail of an approved app', async () => {
    await h.seedApp(alice, {
      slug: 'detailed',
      name: 'Detailed',
      description: 'All fields',
      chain: 'ethereum',
      iconGradientFrom: '#112233',
      iconGradientTo: '#445566',
      techTags: ['vue'],
      svcSdkVersion: '1.2.3',
      reportCount: 2,
    });
    const res = await request(h.app).get('/api/v1/apps/detailed');
    expect(res.status).toBe(200);
    const { app } = AppDetailResponse.parse(res.body);
    expect(app).toMatchObject({
      slug: 'detailed',
      chain: 'ethereum',
      icon_gradient_from: '#112233',
      icon_gradient_to: '#445566',
      icon_svg: null,
      tech_tags: ['vue'],
      svc_sdk_version: '1.2.3',
      report_count: 2,
      status: 'approved',
      author_name: alice.username,
    });
    expect(Object.keys(res.body.app).sort()).toEqual(
      [
        ...LISTING_FIELDS.filter((f) => f !== 'has_icon'),
        'chain',
        'icon_svg',
        'tech_tags',
        'svc_sdk_version',
        'created_at',
        'updated_at',
        'report_count',
      ].sort(),
    );
  });

  it('is 404 for an unknown slug and for a blocked app', async () => {
    for (const slug of ['no-such-app', 'banned-app', 'NOT A SLUG', '%E2%9C%93']) {
      const res = await request(h.app).get(`/api/v1/apps/${slug.replace(/ /g, '%20')}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'App not found' });
    }
  });
});

describe('GET /api/v1/categories', () => {
  it('lists the 12 categories', async () => {
    const res = await request(h.app).get('/api/v1/categories');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ categories: [...APP_CATEGORIES] });
    expect(res.body.categories).toHaveLength(12);
  });

  it('answers 405 for other methods on known paths', async () => {
    const res = await request(h.app).delete('/api/v1/apps');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: 'Method not allowed' });
  });
});

describe('listing answers reused for APP_STORE_LISTING_CACHE_MS', () => {
  let c: Harness;
  beforeAll(async () => {
    c = await startHarness({ listingCacheMs: 500 });
  });
  afterAll(() => c.close());

  it('serves a repeated query from the process cache, cleared at once by writes made here', async () => {
    const dev = c.user();
    await c.seedApp(dev, { slug: 'cached-one' });
    // meta.count: the page itself (meta.total has its own Redis cache, cleared by writes).
    const count = async () => (await request(c.app).get('/api/v1/apps')).body.meta.count;
    expect(await count()).toBe(1);
    // A write that bypasses this process (another replica) shows up only after the TTL.
    await c.seedApp(dev, { slug: 'cached-two' });
    expect(await count()).toBe(1);
    await new Promise((r) => setTimeout(r, 600));
    expect(await count()).toBe(2);
    // Writes through this process clear the cache at once: submit, install (order).
    await c
      .submit(dev, { slug: 'cached-three', name: 'C', url: 'https://c.example.com' })
      .expect(201);
    expect(await count()).toBe(3);
    const u = c.user();
    await request(c.app)
      .put('/api/v1/me/installed/cached-three')
      .set('Cookie', u.cookie)
      .expect(200);
    const first = (await request(c.app).get('/api/v1/apps')).body.apps[0];
    expect(first).toMatchObject({ slug: 'cached-three', downloads: 1 });
  });
});
