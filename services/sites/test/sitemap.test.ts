// GET /sitemap.xml on the real app: the home page and each site page with the 12 hreflang
// alternates, absolute URLs on PUBLIC_BASE_URL, XML that parses.
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

  it('lists at most SITEMAP_MAX_SITES sites', async () => {
    const res = await request(buildApp({ ...h.deps, sitemapMaxSites: 1 })).get('/sitemap.xml');
    expect(locs(res.text)).toEqual(['https://svc.example/', 'https://svc.example/site/sm-1']);
  });
});
