// The pure rules of reading sites at depth: the listing's cursor (written and read back,
// refused when it is not ours) and how the sitemap splits into files of one hash range each.
// (The total's rule is the kit's: packages/service-kit/test/match-total.test.ts.)
import { describe, expect, it } from '@jest/globals';
import { decodeSiteCursor, encodeSiteCursor } from '../src/domain/site-cursor.js';
import {
  SITEMAP_MAX_FILES,
  renderSitemapIndex,
  sitemapFileCount,
  sitemapFilePath,
  sitemapHashRange,
} from '../src/domain/sitemap.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('site cursor', () => {
  it('reads back what it wrote, for both orders, ids with any characters', () => {
    for (const c of [
      { sort: 'hot' as const, key: '621.7635192800285', id: 'f4kcEwLz5HzfF3w6yVF6j' },
      { sort: 'hot' as const, key: '-1.5e-7', id: 'a b/ç?&=' },
      { sort: 'recent' as const, key: '2026-03-04T05:06:07.089Z', id: '设计-1' },
    ]) {
      const text = encodeSiteCursor(c);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeSiteCursor(text)).toEqual({ ...c, key: c.sort === 'hot' ? String(Number(c.key)) : c.key });
    }
  });

  it('keeps a hot score exact to the last bit', () => {
    const score = 0.1 + 0.2;
    const back = decodeSiteCursor(encodeSiteCursor({ sort: 'hot', key: String(score), id: 'x' }));
    expect(Number(back!.key)).toBe(score);
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['not an array', b64({ sort: 'hot', key: '1', id: 'x' })],
    ['a third element missing', b64(['hot', '1'])],
    ['an unknown sort', b64(['top', '1', 'x'])],
    ['a hot key that is no number', b64(['hot', 'NaN', 'x'])],
    ['a hot key out of range', b64(['hot', '1e999', 'x'])],
    ['a hot key as a JSON number', b64(['hot', 1, 'x'])],
    ['a recent key without milliseconds', b64(['recent', '2026-03-04T05:06:07Z', 'x'])],
    ['a recent key on February 30th', b64(['recent', '2026-02-30T00:00:00.000Z', 'x'])],
    ['an empty id', b64(['hot', '1', ''])],
    ['an id of 129 characters', b64(['hot', '1', 'x'.repeat(129)])],
    ['an id with a NUL', b64(['hot', '1', 'a\u0000b'])],
  ])('refuses %s', (_name, text) => {
    expect(decodeSiteCursor(text)).toBeNull();
  });
});

describe('sitemap files', () => {
  it('is one file while the sites fit, else a power of two of half-full to full files', () => {
    expect(sitemapFileCount(0, 10_000)).toBe(1);
    expect(sitemapFileCount(10_000, 10_000)).toBe(1);
    expect(sitemapFileCount(10_001, 10_000)).toBe(2);
    expect(sitemapFileCount(100_000, 10_000)).toBe(16);
    expect(sitemapFileCount(1_000_000, 10_000)).toBe(128);
    expect(sitemapFileCount(2, 1)).toBe(2);
    expect(sitemapFileCount(10 ** 12, 10_000)).toBe(SITEMAP_MAX_FILES);
    expect(sitemapFileCount(5, 0)).toBe(1);
    for (const sites of [10_001, 99_999, 1_000_000, 3_000_000]) {
      const files = sitemapFileCount(sites, 10_000);
      expect(sites / files).toBeLessThanOrEqual(10_000);
      expect(sites / files).toBeGreaterThan(5_000);
    }
  });

  it('splits the int4 hashes into equal ranges that cover them all, without overlap', () => {
    for (const files of [2, 16, 128]) {
      const ranges = Array.from({ length: files }, (_, i) => sitemapHashRange(i + 1, files));
      expect(ranges[0]!.from).toBe(-(2 ** 31));
      expect(ranges.at(-1)!.to).toBe(2 ** 31);
      for (let i = 1; i < files; i++) expect(ranges[i]!.from).toBe(ranges[i - 1]!.to);
      expect(ranges.every((r) => Number.isInteger(r.from) && r.to - r.from === 2 ** 32 / files)).toBe(true);
    }
  });

  it('renders an index of every file', () => {
    const xml = renderSitemapIndex('https://svc.example', 3);
    expect(xml).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect([...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1])).toEqual(
      [1, 2, 3].map((n) => `https://svc.example${sitemapFilePath(n)}`),
    );
    expect(sitemapFilePath(7)).toBe('/sitemap-7.xml');
  });
});
