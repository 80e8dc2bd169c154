// The web client as a whole, through the gateway: page paths reach web and API paths do
// not, every sitemap URL is a page, error pages are HTML, languages are chosen and kept,
// pages carry their own CSP (nonce on every script) and no secret ends up in the HTML.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { apiLogin, expectAccessible, launchBrowser, openPage } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

let sys: WebSystem;
let browser: Browser;

beforeAll(async () => {
  [sys, browser] = await Promise.all([
    startWebSystem({ env: { web: { WEB_PAGE_CACHE_MS: '2000' } } }),
    launchBrowser(),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${sys.baseUrl}${path}`, { headers: { 'x-forwarded-for': '203.0.113.5', ...headers }, redirect: 'manual' });

const htmlLangOf = (html: string) => /<html[^>]*\slang="([^"]+)"/.exec(html)?.[1];
const htmlDirOf = (html: string) => /<html[^>]*\sdir="([^"]+)"/.exec(html)?.[1];

describe('routing through the gateway', () => {
  it('serves the home page as HTML from web, and API paths still as JSON', async () => {
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await home.text()).toMatch(/^<!DOCTYPE html>/i);

    const api = await get('/api/no-such-thing');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await api.json()).toHaveProperty('error');
  });

  it('answers an unknown page path with the HTML 404 page', async () => {
    const res = await get('/no/such/page');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('Page not found');
    expect(htmlLangOf(html)).toBe('en');
  });

  it('answers a page path or query that is not valid text with the HTML 400 page', async () => {
    for (const target of ['/apps/%ED%A0%80', '/sites/a%FFb', '/?search=%C3', '/apps?q=a%00b']) {
      const res = await get(target);
      expect([target, res.status]).toEqual([target, 400]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toMatch(/Invalid request: (text must be valid Unicode|NUL characters)/);
    }
    // Text outside the Basic Multilingual Plane is ordinary: the search page shows it back.
    const astral = await get(`/?search=${encodeURIComponent('𠮷😀')}`);
    expect(astral.status).toBe(200);
    expect(await astral.text()).toContain('𠮷😀');
  });

  it('serves robots.txt pointing at the sitemap of the public origin', async () => {
    const res = await get('/robots.txt');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`Sitemap: ${sys.baseUrl}/sitemap.xml`);
  });

  it('serves hashed assets compressed and cached for a year', async () => {
    const html = await (await get('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"|href="(\/assets\/[^"]+\.js)"/.exec(html);
    const asset = script?.[1] ?? script?.[2];
    expect(asset).toBeDefined();
    const res = await get(asset!, { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable|immutable.*max-age=31536000/);
    expect(res.headers.get('content-encoding')).toBe('br');
    // fetch decodes it: the same script as the uncompressed file.
    const plain = await get(asset!, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await res.text()).toBe(await plain.text());
  });
});

describe('every URL of /sitemap.xml', () => {
  it('is a 200 HTML page', async () => {
    // Two sites, so the sitemap lists site pages and their language variants.
    for (const [i, path] of ['/sitemap-a', '/sitemap-b'].entries()) {
      const res = await fetch(`${sys.baseUrl}/api/sites`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${20 + i}` },
        body: JSON.stringify({ url: sys.website.url(path) }),
      });
      expect(res.status).toBeLessThan(300);
    }
    const xml = await (await get('/sitemap.xml')).text();
    const urls = [...xml.matchAll(/<loc>([^<]+)<\/loc>|href="([^"]+)"/g)].map((m) =>
      (m[1] ?? m[2]!).replaceAll('&amp;', '&'),
    );
    expect(urls.filter((u) => u.includes('/site/')).length).toBeGreaterThanOrEqual(2 * 14);
    for (const url of new Set(urls)) {
      expect(url.startsWith(sys.baseUrl)).toBe(true);
      const res = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.6' } });
      expect({ url, status: res.status, type: res.headers.get('content-type') }).toEqual({
        url,
        status: 200,
        type: expect.stringMatching(/^text\/html/),
      });
      await res.arrayBuffer();
    }
  }, 120_000);
});

describe('languages', () => {
  it('takes ?lang=, keeps it in a cookie, and writes Arabic right to left', async () => {
    const first = await get('/?lang=ar');
    const html = await first.text();
    expect(htmlLangOf(html)).toBe('ar');
    expect(htmlDirOf(html)).toBe('rtl');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^lang=ar;/);
    expect(cookie).toMatch(/HttpOnly/i);

    const again = await (await get('/apps', { cookie: 'lang=ar' })).text();
    expect(htmlLangOf(again)).toBe('ar');
  });

  it('falls back to Accept-Language, then English', async () => {
    expect(htmlLangOf(await (await get('/', { 'accept-language': 'de-CH, fr;q=0.5' })).text())).toBe('de');
    expect(htmlLangOf(await (await get('/', { 'accept-language': 'zh-Hant-HK' })).text())).toBe('zh-HK');
    expect(htmlLangOf(await (await get('/', { 'accept-language': 'sv' })).text())).toBe('en');
  });
});

describe('page security', () => {
  it('sends logged-in readers a strict CSP with a fresh nonce on every script, and the usual page headers', async () => {
    const user = await apiLogin(sys, 'pages-nonce@web.test', '203.0.113.11');
    const headers = { cookie: user.cookie, 'x-forwarded-for': '203.0.113.11' };
    const res = await get('/', headers);
    expect(res.headers.get('x-page-cache')).toBeNull();
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attrs of scripts) expect(attrs).toContain(`nonce="${nonce}"`);
    // A new nonce for every response.
    const other = (await get('/', headers)).headers.get('content-security-policy');
    expect(other).not.toBe(csp);
  });

  it('serves anonymous pages from the short cache, their CSP naming the hash of each inline script', async () => {
    const first = await get('/apps?cache=probe', { 'accept-encoding': 'gzip' });
    expect(first.headers.get('x-page-cache')).toBe('miss');
    await first.arrayBuffer();
    const second = await get('/apps?cache=probe', { 'accept-encoding': 'gzip' });
    expect(second.headers.get('x-page-cache')).toBe('hit');
    const csp = second.headers.get('content-security-policy') ?? '';
    expect(csp).not.toContain('nonce-');
    const html = await second.text();
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/src=/.test(m[1]!));
    expect(inline.length).toBeGreaterThan(0);
    for (const m of inline) {
      const hash = createHash('sha256').update(m[2]!, 'utf8').digest('base64');
      expect(csp).toContain(`'sha256-${hash}'`);
    }
    // Another language is another page.
    const german = await get('/apps?cache=probe', { 'accept-language': 'de' });
    expect(german.headers.get('x-page-cache')).toBe('miss');
    expect(htmlLangOf(await german.text())).toBe('de');
  });

  it('keeps the session token out of the HTML of a logged-in page', async () => {
    const user = await apiLogin(sys, 'pages-secret@web.test', '203.0.113.7');
    const token = user.cookie.split('=')[1]!;
    const res = await get('/', { cookie: user.cookie, 'x-forwarded-for': '203.0.113.7' });
    const html = await res.text();
    expect(html).toContain(user.username);
    expect(html).not.toContain(token);
    expect(res.headers.get('cache-control')).toMatch(/no-store|private/);
  });
});

describe('when the API is down', () => {
  it('pages answer 503 HTML (come back later), not 500, and web stays ready', async () => {
    // A second web process whose API is a closed port.
    const web = await sys.system.start('services/web/dist/main.js', {
      API_BASE_URL: 'http://127.0.0.1:9',
      PUBLIC_BASE_URL: sys.baseUrl,
      WEB_PAGE_CACHE_MS: '2000',
    });
    for (const path of ['/', '/site/some-site-id', '/apps', '/apps/some-app']) {
      const res = await fetch(`${web.url}${path}`);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        status: 503,
        type: expect.stringMatching(/^text\/html/),
      });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('x-page-cache')).not.toBe('miss');
      await res.arrayBuffer();
    }
    expect((await fetch(`${web.url}/readyz`)).status).toBe(200);
    await web.stop();
  });
});

describe('in a real browser', () => {
  it('renders the 404 page without script errors or CSP violations, accessibly', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '203.0.113.8' });
    const res = await page.goto('/definitely/not/here');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await expectAccessible(page);
    // The document's own 404 is reported by Chromium as a failed load; nothing else may fail.
    expect(errors).toEqual(['console: Failed to load resource: the server responded with a status of 404 (Not Found)']);
    await context.close();
  });

  it('runs a page served from the cache without CSP violations', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '203.0.113.12' });
    await page.goto('/?from=cache');
    const again = await page.goto('/?from=cache');
    expect(again?.headers()['x-page-cache']).toBe('hit');
    await page.waitForFunction(() => (window as unknown as { __reactRouterRouteModules?: unknown }).__reactRouterRouteModules !== undefined);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('switches language with the switcher, and keeps it on the next page', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '203.0.113.9' });
    await page.goto('/apps');
    await page.locator('.language-menu summary').click();
    // A navigation: wait for its load, not for a function across it.
    await Promise.all([page.waitForURL(/lang=ja/, { waitUntil: 'load' }), page.getByRole('link', { name: '日本語' }).click()]);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ja');
    await page.goto('/');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ja');
    expect(errors).toEqual([]);
    await context.close();
  });
});
