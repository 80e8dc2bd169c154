// The site-sharing pages in a real browser: the home page (server-rendered, also without
// JavaScript; sort, tag, search and paging in the query string), sharing a site and seeing
// its title and tags arrive live, boosts and their daily limit, clicks, the site page (head
// for search engines consistent with /sitemap.xml, claim instructions), 404s, languages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@svc/service-kit/testing';
import { apiLogin, expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

let sys: WebSystem;
let browser: Browser;
/** Seeded sites, oldest first: path → id. */
const seeded: Array<{ path: string; id: string }> = [];
const SEEDS = 65;
// The submit limit is 5 a minute per IP (catalogue: submitSite), so each address shares 5.
const PER_IP = 5;

interface ApiSite {
  id: string;
  title: string;
  tags: string[];
  click_count: number;
  boost_count: number;
}

async function api<T>(path: string, init: RequestInit & { ip?: string } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sys.baseUrl}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': init.ip ?? '203.0.113.250', ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A browser page (JS on) for one client address; waits fail before the test's own timeout. */
async function open(options: Parameters<typeof openPage>[2]) {
  const opened = await openPage(browser, sys, options);
  opened.page.setDefaultTimeout(15_000);
  return opened;
}

const seedPath = (i: number) => `/seed-${String(i).padStart(3, '0')}`;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
  for (let i = 0; i < SEEDS; i++) {
    const ip = `198.51.100.${1 + Math.floor(i / PER_IP)}`;
    const res = await api<{ site: ApiSite; isNew: boolean }>('/api/sites', {
      method: 'POST',
      ip,
      body: JSON.stringify({ url: sys.website.url(seedPath(i)) }),
    });
    expect(res.status).toBe(201);
    seeded.push({ path: seedPath(i), id: res.body.site.id });
  }
  // The worker scrapes (title) and tags every site in the background.
  await eventually(async () => {
    const { body } = await api<{ sites: ApiSite[]; total: number }>(`/api/sites?search=${encodeURIComponent('seed-')}&tag=${encodeURIComponent('工具')}&page=2`);
    return body.total >= SEEDS ? true : undefined;
  }, { ms: 60_000, everyMs: 200, what: 'the seeded sites to be scraped and tagged' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

const cards = (page: Page) => page.locator('.site-list-section article.site-card');
const cardTitles = (page: Page) => page.locator('.site-list-section article.site-card .site-title a').allInnerTexts();
/** The title text without the visually hidden "(opens in a new tab)". */
const clean = (titles: string[]) => titles.map((t) => t.replace(/\s*\(opens in a new tab\)\s*$/, '').trim());

describe('the home page', () => {
  it('is complete without JavaScript: sites, daily background, chat, paging links', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, baseURL: sys.baseUrl, extraHTTPHeaders: { 'x-forwarded-for': '192.0.2.1' } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const res = await page.goto('/');
    expect(res?.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Discover and share websites');
    expect(await cards(page).count()).toBe(60);
    // The daily background: its image (proxied by the API), title and credit.
    const bg = await api<{ imageUrl: string; title: string; copyright: string }>('/api/daily-bg');
    expect(await page.locator('.daily-bg img').getAttribute('src')).toBe(bg.body.imageUrl);
    expect(await page.locator('.daily-bg figcaption').innerText()).toContain(bg.body.title);
    if (bg.body.copyright) expect(await page.locator('.daily-bg figcaption').innerText()).toContain(bg.body.copyright);
    // The chat's recent messages are in the HTML (each submission posted a system message).
    await page.getByRole('log').getByText(/A new site was shared: 127\.0\.0\.1/).first().waitFor();
    // Paging is a link: page 2 holds the rest.
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/[?&]page=2/);
    const total = (await api<{ total: number }>('/api/sites')).body.total;
    expect(await cards(page).count()).toBe(total - 60);
    expect(await page.getByRole('link', { name: 'Previous' }).count()).toBe(1);
    // Sorting without JavaScript too.
    await page.getByRole('link', { name: 'Recent' }).click();
    await page.waitForURL(/sort=recent/);
    expect(page.url()).not.toMatch(/page=/);
    // The forms post to the page itself: sharing a site and chatting work without JavaScript.
    await page.getByLabel('Website address (URL)').fill(sys.website.url('/shared-without-js'));
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.locator('.submit-result').getByText('Thanks! The site was added.').waitFor();
    expect(await page.locator('.submit-result .site-title a').getAttribute('href')).toBe(sys.website.url('/shared-without-js'));
    await page.getByLabel('Your message').fill('Written without JavaScript');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log').getByText('Written without JavaScript').waitFor();
    await context.close();
  });

  it('sorts (hot, recent), filters by tag and searches through the query string', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.2' });
    await page.goto('/');
    const hot = await api<{ sites: ApiSite[] }>('/api/sites?sort=hot');
    expect(clean(await cardTitles(page))).toEqual(hot.body.sites.map((s) => s.title || '127.0.0.1'));

    await page.getByRole('navigation', { name: 'Sort' }).getByRole('link', { name: 'Recent' }).click();
    await page.waitForURL(/\?sort=recent$/);
    const recent = await api<{ sites: ApiSite[] }>('/api/sites?sort=recent');
    await page.waitForFunction(
      (first) => document.querySelector('.site-list-section .site-title a')?.textContent?.startsWith(first),
      recent.body.sites[0]!.title,
    );
    expect(clean(await cardTitles(page))).toEqual(recent.body.sites.map((s) => s.title || '127.0.0.1'));
    expect(await page.getByRole('link', { name: 'Recent' }).getAttribute('aria-current')).toBe('page');

    // Tag filter: every site is tagged 工具 ("Tools") by the fake AI; "Design" has none.
    await page.getByRole('navigation', { name: 'Tag' }).getByRole('link', { name: 'Design' }).click();
    await page.waitForURL((u) => u.searchParams.get('tag') === '设计' && u.searchParams.get('sort') === 'recent');
    await page.getByText('No sites here yet.').waitFor();
    expect(await cards(page).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Tag' }).getByRole('link', { name: 'Tools' }).click();
    await page.waitForURL((u) => u.searchParams.get('tag') === '工具');
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(60);
    expect(await cards(page).first().getByRole('list', { name: 'Tags' }).innerText()).toContain('Tools');

    // Search: a GET form, so the result is a link too.
    await page.getByRole('searchbox', { name: 'Search sites' }).fill('seed-042');
    await page.getByRole('searchbox', { name: 'Search sites' }).press('Enter');
    await page.waitForURL((u) => u.searchParams.get('search') === 'seed-042' && u.searchParams.get('tag') === '工具');
    await page.waitForFunction(() => document.querySelectorAll('.site-list-section article.site-card').length === 1);
    expect(clean(await cardTitles(page))).toEqual(['Contract page /seed-042']);
    // The same view, opened from its link.
    const again = await page.context().newPage();
    await again.goto(page.url());
    expect(clean(await cardTitles(again))).toEqual(['Contract page /seed-042']);
    await again.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shares a site from the form and shows its title and tags as they arrive, without a reload', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.3' });
    await page.goto('/');
    await page.getByText('Live', { exact: true }).waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const url = sys.website.url('/shared-in-the-form');
    await page.getByLabel('Website address (URL)').fill(url);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const result = page.locator('.submit-result');
    await result.getByText('Thanks! The site was added.').waitFor();
    await result.locator('.site-title').getByText('Contract page /shared-in-the-form').waitFor();
    await result.getByRole('list', { name: 'Tags' }).getByText('Tools').waitFor();
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // Sharing it again shows the known site.
    await page.getByLabel('Website address (URL)').fill(url);
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await result.getByText('This site was already shared — here it is.').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('submits the form with the keyboard only', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.4' });
    await page.goto('/');
    await page.getByText('Live', { exact: true }).waitFor();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.id === 'submit-url')) break;
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('submit-url');
    await page.keyboard.type(sys.website.url('/typed-with-the-keyboard'));
    await page.keyboard.press('Enter');
    await page.locator('.submit-result .site-title').getByText('Contract page /typed-with-the-keyboard').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('boosts a site: the credits left go down, then the daily limit is said in words', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.5' });
    await page.goto('/?search=seed-007');
    const card = cards(page).first();
    const before = (await api<{ site: ApiSite }>(`/api/sites/${seeded[7]!.id}`)).body.site.boost_count;
    await card.getByRole('button', { name: `Boost (${before})` }).click();
    await card.getByText('Boosted! Boosts left today: 0').waitFor();
    await card.getByRole('button', { name: `Boost (${before + 1})` }).waitFor();
    expect((await api<{ site: ApiSite }>(`/api/sites/${seeded[7]!.id}`)).body.site.boost_count).toBe(before + 1);
    await card.getByRole('button', { name: `Boost (${before + 1})` }).click();
    await card.getByText('You have used today’s boost: visitors get 1 boost a day. Log in for more.').waitFor();
    // The browser logs the expected 429 answer itself; nothing else may be there.
    expect(errors.filter((e) => !/status of 429/.test(e))).toEqual([]);
    expect(errors.filter((e) => /status of 429/.test(e))).toHaveLength(1);
    await context.close();
  });

  it('records a click when a site is opened (new tab, noopener noreferrer)', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.6' });
    const target = seeded[11]!;
    await page.goto('/?search=seed-011');
    const link = cards(page).first().getByRole('link', { name: /^Contract page \/seed-011/ });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    const before = (await api<{ site: ApiSite }>(`/api/sites/${target.id}`)).body.site.click_count;
    const [popup] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(sys.website.url('/seed-011'));
    await eventually(async () => {
      const now = (await api<{ site: ApiSite }>(`/api/sites/${target.id}`)).body.site.click_count;
      return now > before ? now : undefined;
    }, { everyMs: 200, what: 'the click to be counted' });
    await popup.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows Chinese tag names in Chinese, Arabic right to left', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.7' });
    await page.goto('/?lang=zh-CN&search=seed-001');
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.getByRole('heading', { name: '分享的网站' }).count()).toBe(1);
    expect(await cards(page).first().getByRole('list', { name: '标签' }).innerText()).toBe('工具');
    expect(await page.getByRole('navigation', { name: '标签' }).getByRole('link', { name: '设计' }).count()).toBe(1);
    expect(await page.getByText('Tools', { exact: true }).count()).toBe(0);

    await page.goto('/?lang=ar');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    expect(await page.getByRole('heading', { name: 'المواقع المشاركة' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is accessible', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.8' });
    await page.goto('/');
    await page.getByText('Live', { exact: true }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'home');
    expect(errors).toEqual([]);
    await context.close();
  });
});

/** hreflang + href of each alternate of /sitemap.xml's entry whose <loc> is `loc`. */
async function sitemapAlternates(loc: string): Promise<string[]> {
  const xml = await (await fetch(`${sys.baseUrl}/sitemap.xml`)).text();
  const entry = [...xml.matchAll(/<url>([\s\S]*?)<\/url>/g)].map((m) => m[1]!).find((u) => u.includes(`<loc>${loc}</loc>`));
  expect(entry).toBeDefined();
  return [...entry!.matchAll(/hreflang="([^"]+)" href="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]!.replaceAll('&amp;', '&')}`).sort();
}

async function pageAlternates(page: Page): Promise<string[]> {
  return (
    await page.locator('link[rel="alternate"][hreflang]').evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('hreflang')} ${e.getAttribute('href')}`),
    )
  ).sort();
}

describe('the home page head', () => {
  it('has the canonical URL and language alternates /sitemap.xml lists for it (plain view only)', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.12' });
    await page.goto('/?lang=de');
    const loc = `${sys.baseUrl}/`;
    expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(loc);
    const fromSitemap = await sitemapAlternates(loc);
    expect(fromSitemap).toHaveLength(13);
    expect(await pageAlternates(page)).toEqual(fromSitemap);
    // A filtered view is not in the sitemap: no canonical claiming it is the home page.
    await page.goto('/?sort=recent');
    expect(await page.locator('link[rel="canonical"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the site page', () => {
  it('shows the site, its head for search engines (as /sitemap.xml lists it) and how to claim it', async () => {
    const { page, errors, context } = await open({ clientIp: '192.0.2.9' });
    const { id } = seeded[3]!;
    const res = await page.goto(`/site/${id}`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('Contract page /seed-003 · svc');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Contract page /seed-003');
    const attr = (sel: string, name: string) => page.locator(sel).getAttribute(name);
    const pageUrl = `${sys.baseUrl}/site/${id}`;
    expect(await attr('meta[property="og:title"]', 'content')).toBe('Contract page /seed-003');
    expect(await attr('meta[property="og:description"]', 'content')).toBe('A page for the contract test');
    expect(await attr('meta[name="description"]', 'content')).toBe('A page for the contract test');
    expect(await attr('meta[property="og:url"]', 'content')).toBe(pageUrl);
    expect(await attr('link[rel="canonical"]', 'href')).toBe(pageUrl);

    // The alternates are exactly the sitemap's for this page.
    const fromSitemap = await sitemapAlternates(pageUrl);
    expect(fromSitemap).toHaveLength(13);
    const fromPage = await pageAlternates(page);
    expect(fromPage).toEqual(fromSitemap);

    // Claim: the exact meta tag, and for visitors a way to log in to verify.
    expect(await page.getByText('This site is not claimed yet.').count()).toBe(1);
    expect(await page.locator('.claim code').innerText()).toBe(`<meta name="svc-verify" content="${id}">`);
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Log in to verify ownership' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Log in to bookmark' }).count()).toBe(1);
    await page.getByText('Live', { exact: true }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'site');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lets a logged-in owner verify the claim once the meta tag is on the site', async () => {
    const ip = '192.0.2.11';
    const { cookie } = await apiLogin(sys, 'owner@example.com', ip);
    const submitted = await api<{ site: ApiSite }>('/api/sites', {
      method: 'POST',
      ip,
      body: JSON.stringify({ url: sys.website.url('/claimable/mine') }),
    });
    expect(submitted.status).toBe(201);
    const { id } = submitted.body.site;
    const { page, errors, context } = await open({ clientIp: ip, cookie });
    await page.goto(`/site/${id}`);
    // Not on the site yet: the answer says so, the site stays unclaimed.
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.claim').getByText('The tag was not found on the site.').waitFor();
    expect(await page.getByText('This site is not claimed yet.').count()).toBe(1);
    // The owner adds the tag: verified, and the page says the site is claimed.
    sys.website.verify(id);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('This site is claimed by its owner.').waitFor();
    expect((await api<{ site: { is_claimed: boolean } }>(`/api/sites/${id}`)).body.site.is_claimed).toBe(true);
    // Logged in, the site can be bookmarked here and on its card.
    const bookmark = page.getByRole('button', { name: 'Bookmark', exact: true });
    await bookmark.click();
    await page.waitForFunction(() => document.querySelector('.bookmark-button')?.getAttribute('aria-pressed') === 'true');
    const list = await fetch(`${sys.baseUrl}/api/bookmarks`, { headers: { cookie, 'x-forwarded-for': ip } });
    expect(((await list.json()) as { bookmarks: Array<{ site_id: string }> }).bookmarks.map((b) => b.site_id)).toEqual([id]);
    await page.goto('/?search=claimable');
    expect(await cards(page).first().getByRole('button', { name: /^Bookmark ?: Contract page \/claimable\/mine$/ }).getAttribute('aria-pressed')).toBe('true');
    // The refused first attempt is logged by the browser itself (a 4xx answer), nothing else.
    expect(errors.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e))).toEqual([]);
    await context.close();
  });

  it('answers an unknown or malformed site id with the HTML 404 page', async () => {
    for (const path of ['/site/no-such-site-id', '/site/bad%20id!']) {
      const res = await fetch(`${sys.baseUrl}${path}`, { headers: { 'x-forwarded-for': '192.0.2.10' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('Page not found');
    }
  });
});
