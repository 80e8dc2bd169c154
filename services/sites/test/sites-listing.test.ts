// GET /api/sites: search (Latin, Chinese, domain, tags), tag filter, hot and recent order,
// 60 per page, total and hasMore, paging by page and by cursor, and 400s for bad queries. Rows are written with the
// generated client so counters and times are chosen by the test.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SITES_MAX_PAGE, SITES_PAGE_TOO_DEEP } from '@svc/types';
import { buildApp } from '../src/app.js';
import { encodeSiteCursor } from '../src/domain/site-cursor.js';
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
    expect(res.body).toMatchObject({ total: 4, total_exact: true, page: 1, hasMore: false, next_cursor: null });
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

  it('answers 400 naming the cursor for a page past the cap', async () => {
    expect((await list({ page: SITES_MAX_PAGE })).status).toBe(200);
    for (const page of [SITES_MAX_PAGE + 1, 10_000_000]) {
      const res = await list({ page });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: SITES_PAGE_TOO_DEEP });
      expect(res.body.error).toMatch(/cursor/);
    }
  });

  it('answers 400 for a repeated parameter', async () => {
    const res = await request(h.app).get('/api/sites?sort=hot&sort=recent');
    expect(res.status).toBe(400);
  });
});

describe('paging', () => {
  // Seven sites share each submission time (and so each hot score): page ends fall inside
  // such groups, where only the id orders the sites.
  beforeAll(async () => {
    await h.db.site.createMany({
      data: Array.from({ length: 130 }, (_, i) => ({
        id: `p-${String(i).padStart(3, '0')}`,
        url: `https://page-${i}.example`,
        domain: `page-${i}.example`,
        title: `Paged site ${i}`,
        tags: ['娱乐'],
        firstSubmittedAt: new Date(T0 + (Math.floor(i / 7) + 10) * hour),
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
    // The newest group is p-126…p-129, in id order.
    expect(ids(p1).slice(0, 4)).toEqual(['p-126', 'p-127', 'p-128', 'p-129']);
  });

  /** Every page from the first by following next_cursor; the answers in order. */
  async function walk(query: Record<string, string>) {
    const answers = [await list(query)];
    while (answers.at(-1)!.body.next_cursor !== null) {
      expect(answers.length).toBeLessThan(10);
      answers.push(await list({ ...query, cursor: answers.at(-1)!.body.next_cursor }));
    }
    return answers;
  }

  it.each([
    ['hot, all sites', { sort: 'hot' }, 134],
    ['recent, all sites', { sort: 'recent' }, 134],
    ['recent, a tag', { sort: 'recent', tag: '娱乐' }, 130],
    ['hot, a search', { sort: 'hot', search: 'paged' }, 130],
  ])('reads %s by cursor: the order of numbered pages, each site once', async (_name, query, n) => {
    const byCursor = await walk(query);
    expect(byCursor.map((r) => r.status)).toEqual(byCursor.map(() => 200));
    expect(byCursor.map((r) => r.body.sites.length)).toEqual([60, 60, n - 120]);
    expect(byCursor.map((r) => r.body.hasMore)).toEqual([true, true, false]);
    expect(byCursor.every((r) => r.body.total === n && r.body.total_exact === true)).toBe(true);
    const byPage = [await list(query), await list({ ...query, page: 2 }), await list({ ...query, page: 3 })];
    const cursorIds = byCursor.flatMap(ids);
    expect(cursorIds).toEqual(byPage.flatMap(ids));
    expect(new Set(cursorIds).size).toBe(n);
    // A numbered page hands on a cursor too: page 2's leads where the cursor walk's does.
    expect(byPage[1]!.body.next_cursor).toBe(byCursor[1]!.body.next_cursor);
  });

  it('keeps its place when sites are added before it', async () => {
    const first = await list({ sort: 'recent' });
    await h.db.site.create({
      data: { id: 'p-new', url: 'https://new.example', domain: 'new.example', title: 'New', firstSubmittedAt: new Date(T0 + 1000 * hour) },
    });
    try {
      const next = await list({ sort: 'recent', cursor: first.body.next_cursor });
      const again = await list({ sort: 'recent', page: 2 });
      // By cursor: the sites after the first page's last; by page: shifted by the new one.
      expect(ids(next)[0]).not.toBe(ids(again)[0]);
      expect(ids(again)[0]).toBe(ids(first).at(-1));
      expect(ids(first)).not.toContain(ids(next)[0]);
    } finally {
      await h.db.site.delete({ where: { id: 'p-new' } });
    }
  });

  it.each([
    ['a cursor it did not write', { cursor: 'bm90LWEtY3Vyc29y' }],
    ['a cursor that is not base64url', { cursor: '***' }],
    ['a cursor of the other order', { sort: 'recent', cursor: encodeSiteCursor({ sort: 'hot', key: '1.5', id: 'p-001' }) }],
  ])('answers 400 Invalid cursor for %s', async (_name, query) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid cursor' });
  });

  it('answers 400 for a cursor with a page, and for an empty or over-long cursor', async () => {
    const cursor = (await list({})).body.next_cursor;
    const both = await list({ cursor, page: 2 });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'Give page or cursor, not both' });
    expect((await list({ cursor, page: 1 })).status).toBe(200);
    expect((await list({ cursor: '' })).status).toBe(400);
    expect((await list({ cursor: 'a'.repeat(401) })).status).toBe(400);
  });
});
