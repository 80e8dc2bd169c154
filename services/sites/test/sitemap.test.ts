// GET /sitemap.xml on the real app: the home page and each site page with the 12 hreflang
// alternates, absolute URLs on PUBLIC_BASE_URL, XML that parses; past SITEMAP_MAX_SITES, an
// index of /sitemap-<n>.xml files that list every visible site once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Parser } from 'htmlparser2';
import { LANGUAGE_CODES } from '@svc/types';
import { buildApp } from '../src/app.js';
import { startHarness, type Harness } from './api-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.db.site.createMany({
    data: [
      {
        id: 'sm-1',
        url: 'https://one.example',
        domain: 'one.example',
        title: 'one',
        clickCount: 10,
      },
      { id: 'sm-2', url: 'https://two.example', domain: 'two.example', title: 'two' },
    ],
  });
});
afterAll(async () => {
  await h?.close();
});

function locs(xml: string): string[] {
  const out: string[] = [];
  let inLoc = false;
  const p = new Parser(
    {
      onopentag: (name) => (inLoc = name === 'loc'),
      ontext: (t) => inLoc && out.push(t),
      onclosetag: () => (inLoc = false),
    },
    { xmlMode: true, decodeEntities: true },
  );
  p.write(xml);
  p.end();
  return out;
}

describe('GET /sitemap.xml', () => {
  it('lists the home page and every site, hottest first, each with 13 alternates', async () => {
    const res = await request(h.app).get('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(locs(res.text)).toEqual([
      'https://svc.example/',
      'https://svc.example/site/sm-1',
      'https://svc.example/site/sm-2',
    ]);
    for (const lang of LANGUAGE_CODES) {
      expect(res.text).toContain(
        `hreflang="${lang}" href="https://svc.example/site/sm-1?lang=${lang}"`,
      );
    }
    expect(res.text.match(/<xhtml:link /g)).toHaveLength(3 * 13);
  });

  it('sends it gzipped to clients that accept gzip, plain to the others', async () => {
    const zipped = await request(h.app).get('/sitemap.xml').set('Accept-Encoding', 'gzip');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    const plain = await request(h.app).get('/sitemap.xml').set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/xml/);
    expect(zipped.text).toBe(plain.text);
    expect(locs(plain.text)).toHaveLength(3);
  });

  it('answers 404 for a file while there is no index', async () => {
    for (const path of ['/sitemap-1.xml', '/sitemap-2.xml']) {
      expect((await request(h.app).get(path)).status).toBe(404);
    }
  });
});

describe('sitemap index', () => {
  const fileLocs = async (app: ReturnType<typeof buildApp>, n: number) => {
    const res = await request(app).get(`/sitemap-${n}.xml`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text).toContain('<urlset');
    return locs(res.text);
  };

  it('past SITEMAP_MAX_SITES, /sitemap.xml indexes files that list every site once, the home page first', async () => {
    const app = buildApp({ ...h.deps, sitemapMaxSites: 1 });
    const index = await request(app).get('/sitemap.xml');
    expect(index.status).toBe(200);
    expect(index.text).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(index.text)).toEqual(['https://svc.example/sitemap-1.xml', 'https://svc.example/sitemap-2.xml']);
    const [one, two] = [await fileLocs(app, 1), await fileLocs(app, 2)];
    expect(one[0]).toBe('https://svc.example/');
    expect([...one, ...two].sort()).toEqual([
      'https://svc.example/',
      'https://svc.example/site/sm-1',
      'https://svc.example/site/sm-2',
    ]);
  });

  it('splits 60 sites into files of about SITEMAP_MAX_SITES, none listed twice, a hidden one in none', async () => {
    await h.db.site.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        id: `many-${i}`,
        url: `https://many-${i}.example`,
        domain: `many-${i}.example`,
        title: `many ${i}`,
        ...(i === 7 && { hiddenAt: new Date(), hiddenReason: 'spam' }),
      })),
    });
    try {
      const app = buildApp({ ...h.deps, sitemapMaxSites: 10 });
      // 61 visible sites at about 10 a file: 8 files.
      const index = locs((await request(app).get('/sitemap.xml')).text);
      expect(index).toHaveLength(8);
      const files = [];
      for (let n = 1; n <= 8; n++) files.push(await fileLocs(app, n));
      const all = files.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(all.filter((l) => l !== 'https://svc.example/').sort()).toEqual(
        ['sm-1', 'sm-2', ...Array.from({ length: 60 }, (_, i) => `many-${i}`).filter((id) => id !== 'many-7')]
          .map((id) => `https://svc.example/site/${id}`)
          .sort(),
      );
      // Hash ranges share the sites out: no file holds most of them.
      expect(Math.max(...files.map((f) => f.length))).toBeLessThan(30);
      for (const path of ['/sitemap-9.xml', '/sitemap-0.xml', '/sitemap-x.xml', '/sitemap-01.xml']) {
        expect((await request(app).get(path)).status).toBe(404);
      }
    } finally {
      await h.db.site.deleteMany({ where: { id: { startsWith: 'many-' } } });
    }
  });

  it('keeps a render for SITEMAP_CACHE_MS, and renders every time at 0', async () => {
    const cached = buildApp({ ...h.deps, sitemapMaxSites: 1 });
    const uncached = buildApp({ ...h.deps, sitemapMaxSites: 1, sitemapCacheMs: 0 });
    const before = [await request(cached).get('/sitemap.xml'), await request(uncached).get('/sitemap.xml')];
    await h.db.site.createMany({
      data: ['late-1', 'late-2'].map((id) => ({ id, url: `https://${id}.example`, domain: `${id}.example`, title: id })),
    });
    try {
      // Four sites at one a file: the index grows from 2 to 4 files where nothing is kept.
      expect(locs(before[0]!.text)).toHaveLength(2);
      expect(locs((await request(cached).get('/sitemap.xml')).text)).toHaveLength(2);
      expect(locs((await request(uncached).get('/sitemap.xml')).text)).toHaveLength(4);
    } finally {
      await h.db.site.deleteMany({ where: { id: { startsWith: 'late-' } } });
    }
  });
});
