// GET /api/sites: search (Latin, Chinese, domain, tags), tag filter, hot and recent order,
// 60 per page, total and hasMore, and 400s for bad queries. Rows are written with the
// generated client so counters and times are chosen by the test.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildApp } from '../src/app.js';
import { hotScore } from '../src/domain/hot-score.js';
import { startHarness, type Harness } from './api-harness.js';

let h: Harness;
const T0 = Date.parse('2026-06-01T00:00:00Z');
const hour = 3_600_000;

beforeAll(async () => {
  h = await startHarness();
  await h.db.site.createMany({
    data: [
      {
        id: 'a-tools',
        url: 'https://tools.example',
        domain: 'tools.example',
        title: 'Handy Tools',
        description: 'Converters and calculators',
        tags: ['工具'],
        firstSubmittedAt: new Date(T0),
        clickCount: 50,
      },
      {
        id: 'b-news',
        url: 'https://news.example',
        domain: 'news.example',
        title: 'Daily News',
        description: '每日新闻与深度报道',
        tags: ['新闻'],
        firstSubmittedAt: new Date(T0 + 1 * hour),
      },
      {
        id: 'c-design',
        url: 'https://design.example',
        domain: 'design.example',
        title: '设计灵感',
        description: 'UI patterns',
        tags: ['设计', '资源'],
        firstSubmittedAt: new Date(T0 + 2 * hour),
        boostCount: 3,
      },
      {
        id: 'd-old',
        url: 'https://old.example',
        domain: 'old.example',
        title: 'Ancient tools',
        description: '',
        tags: ['工具', '学习'],
        firstSubmittedAt: new Date(T0 - 100 * hour),
        clickCount: 1000,
      },
    ],
  });
});
afterAll(async () => {
  await h?.close();
});

const list = (query: Record<string, string | number>) =>
  request(h.app).get('/api/sites').query(query);
const ids = (res: request.Response) => res.body.sites.map((s: { id: string }) => s.id);

describe('GET /api/sites', () => {
  it('orders by hot_score by default, following the documented formula', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, page: 1, hasMore: false });
    const rows = await h.db.site.findMany();
    const expected = rows
      .map((r) => ({ id: r.id, score: hotScore(r) }))
      .sort((a, b) => b.score - a.score)
      .map((r) => r.id);
    expect(ids(res)).toEqual(expected);
    for (const r of rows) expect(r.hotScore).toBeCloseTo(hotScore(r), 9);
    // 50 clicks outweigh 2 hours of age; 1000 clicks do not outweigh 100 hours; three
    // boosts lift c above the newer-than-a, unboosted b.
    expect(ids(res)).toEqual(['a-tools', 'c-design', 'b-news', 'd-old']);
  });

  it('moves a site up when it is clicked and boosted', async () => {
    await h.db.site.update({ where: { id: 'a-tools' }, data: { clickCount: { increment: 5000 } } });
    const res = await list({ sort: 'hot' });
    expect(ids(res)[0]).toBe('a-tools');
    await h.db.site.update({ where: { id: 'a-tools' }, data: { clickCount: 50 } });
  });

  it('sorts by first submission, newest first, with sort=recent', async () => {
    expect(ids(await list({ sort: 'recent' }))).toEqual(['c-design', 'b-news', 'a-tools', 'd-old']);
  });

  it.each([
    ['a Latin word in the title', 'tools', ['a-tools', 'd-old']],
    ['a word prefix, case-insensitive', 'CALC', ['a-tools']],
    ['Chinese text in the description', '新闻', ['b-news']],
    ['a Chinese phrase inside a longer text', '深度报道', ['b-news']],
    ['Chinese text in the title', '设计', ['c-design']],
    ['a tag', '学习', ['d-old']],
    ['the domain', 'design.example', ['c-design']],
    ['the URL host', 'news', ['b-news']],
    ['two words, both required', 'daily news', ['b-news']],
    ['nothing', 'zzzz', []],
  ])('searches %s', async (_label, search, expected) => {
    const res = await list({ search, sort: 'recent' });
    expect(res.status).toBe(200);
    expect(ids(res).sort()).toEqual([...expected].sort());
    expect(res.body.total).toBe(expected.length);
  });

  it('filters by tag, and combines tag and search', async () => {
    expect(ids(await list({ tag: '工具', sort: 'recent' }))).toEqual(['a-tools', 'd-old']);
    expect(ids(await list({ tag: '工具', search: 'ancient' }))).toEqual(['d-old']);
    expect((await list({ tag: '社交' })).body).toMatchObject({
      sites: [],
      total: 0,
      hasMore: false,
    });
  });

  it('treats an empty search as no search', async () => {
    expect((await list({ search: '   ' })).body.total).toBe(4);
  });

  it.each([
    ['an unknown tag', { tag: 'games' }],
    ['an unknown sort', { sort: 'top' }],
    ['page 0', { page: 0 }],
    ['a negative page', { page: -1 }],
    ['a fractional page', { page: 1.5 }],
    ['a non-numeric page', { page: 'two' }],
    ['a huge page', { page: 10_000_000 }],
    ['a 201-character search', { search: 'x'.repeat(201) }],
  ])('answers 400 for %s', async (_label, query) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid request');
    expect(Array.isArray(res.body.details)).toBe(true);
  });

  it('sends cached pages gzipped to clients that accept gzip, plain JSON to others', async () => {
    const app = buildApp({ ...h.deps, listCacheMs: 60_000 });
    const zipped = await request(app).get('/api/sites').set('Accept-Encoding', 'gzip, deflate, br');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    const plain = await request(app).get('/api/sites').set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(plain.headers['content-length'])).toBeGreaterThan(
      Number(zipped.headers['content-length']),
    );
    expect(zipped.body).toEqual(plain.body);
    expect(plain.body.total).toBe(4);
    // Uncached pages are sent once: not worth compressing.
    const once = await request(h.app).get('/api/sites').set('Accept-Encoding', 'gzip');
    expect(once.headers['content-encoding']).toBeUndefined();
  });

  it('answers 400 for a repeated parameter', async () => {
    const res = await request(h.app).get('/api/sites?sort=hot&sort=recent');
    expect(res.status).toBe(400);
  });
});

describe('paging', () => {
  beforeAll(async () => {
    await h.db.site.createMany({
      data: Array.from({ length: 130 }, (_, i) => ({
        id: `p-${String(i).padStart(3, '0')}`,
        url: `https://page-${i}.example`,
        domain: `page-${i}.example`,
        title: `Paged site ${i}`,
        tags: ['娱乐'],
        firstSubmittedAt: new Date(T0 + (i + 10) * hour),
      })),
    });
  });

  it('gives 60 per page with total and hasMore, no overlap between pages', async () => {
    const p1 = await list({ tag: '娱乐', sort: 'recent' });
    const p2 = await list({ tag: '娱乐', sort: 'recent', page: 2 });
    const p3 = await list({ tag: '娱乐', sort: 'recent', page: 3 });
    const p4 = await list({ tag: '娱乐', sort: 'recent', page: 4 });
    expect([p1, p2, p3].map((r) => r.body.sites.length)).toEqual([60, 60, 10]);
    expect([p1, p2, p3, p4].map((r) => r.body.hasMore)).toEqual([true, true, false, false]);
    expect([p1, p2, p3, p4].map((r) => r.body.page)).toEqual([1, 2, 3, 4]);
    expect(p1.body.total).toBe(130);
    expect(p4.body.sites).toEqual([]);
    const all = [...ids(p1), ...ids(p2), ...ids(p3)];
    expect(new Set(all).size).toBe(130);
    expect(ids(p1)[0]).toBe('p-129');
  });
});
