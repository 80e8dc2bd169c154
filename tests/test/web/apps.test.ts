// The app store in a real browser: the listing and its shareable filters (cards with the
// icon image from the icon endpoint), an app's page (Open Graph, icon as an image), installing and opening an app in the desktop's sandboxed
// frame (and the desktop's CSP), uninstalling, and five reporters blocking an app through
// the report dialog.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { apiLogin, expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

// A real browser against the whole system: generous when the machine is busy.
jest.setTimeout(60_000);

let sys: WebSystem;
let browser: Browser;
let developer: { cookie: string; username: string };

const DEV_IP = '198.18.1.10';
const FRAMED_URL = 'https://calc-tools.example/app?x=1';
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle id="icon-dot" cx="5" cy="5" r="4" fill="#fff"/></svg>';

async function api(path: string, init: { method?: string; cookie?: string; ip?: string; body?: unknown } = {}) {
  return fetch(`${sys.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-forwarded-for': init.ip ?? DEV_IP,
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    redirect: 'manual',
  });
}

async function submitApp(body: Record<string, unknown>) {
  const res = await api('/api/v1/apps', { method: 'POST', cookie: developer.cookie, body });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
  developer = await apiLogin(sys, 'apps-dev@example.com', DEV_IP);
  // Four apps (the submission limit is five an hour per developer).
  await submitApp({
    slug: 'calc-tools',
    name: 'Calc Tools',
    url: FRAMED_URL,
    description: 'A calculator for every day',
    category: 'tools',
    app_type: 'web',
    open_mode: 'iframe',
  });
  await submitApp({
    slug: 'chain-swap',
    name: 'Chain Swap',
    url: 'https://swap.example/',
    description: 'Swap tokens on a chain',
    category: 'defi',
    app_type: 'dapp',
    open_mode: 'external',
    chain: 'Ethereum',
  });
  await submitApp({
    slug: 'notes-pad',
    name: 'Notes Pad',
    url: 'https://notes.example/',
    description: 'Write notes offline',
    category: 'productivity',
    app_type: 'pwa',
    open_mode: 'iframe',
  });
  await submitApp({
    slug: 'report-me',
    name: 'Report Me',
    url: 'https://report-me.example/',
    description: 'An app the community does not like',
    category: 'games',
    app_type: 'web',
  });
  const patched = await api('/api/v1/apps/calc-tools', {
    method: 'PATCH',
    cookie: developer.cookie,
    body: {
      icon_gradient_from: '#0f766e',
      icon_gradient_to: '#1e3a8a',
      icon_svg: ICON_SVG,
      tech_tags: ['react', 'wasm'],
      svc_sdk_version: '1.2.3',
    },
  });
  expect(patched.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

const cardNames = (page: Page) => page.locator('.app-card h2').allTextContents();

/** Resolves once React has hydrated the page (its DOM nodes carry React's fiber keys). */
const hydrated = (page: Page) =>
  page.waitForFunction(() => {
    const main = document.querySelector('main');
    return !!main && Object.keys(main).some((k) => k.startsWith('__reactFiber'));
  });


describe('/apps', () => {
  it('lists the approved apps as cards linking to their pages, with downloads', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '198.18.2.10' });
    const res = await page.goto('/apps');
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('App store · svc');
    expect((await cardNames(page)).sort()).toEqual(['Calc Tools', 'Chain Swap', 'Notes Pad', 'Report Me']);
    const link = page.getByRole('link', { name: 'Calc Tools' });
    expect(await link.getAttribute('href')).toBe('/apps/calc-tools');
    expect(await page.locator('.app-card').first().textContent()).toMatch(/Downloads: \d/);
    // The card's icon: the gradient, and the SVG as an image loaded from the icon endpoint.
    const cardIcon = page.locator('.app-card', { hasText: 'Calc Tools' }).locator('.app-icon');
    expect(await cardIcon.getAttribute('style')).toContain('#0f766e');
    const cardImg = cardIcon.locator('img');
    expect(await cardImg.getAttribute('src')).toBe('/api/v1/apps/calc-tools/icon');
    await page.waitForFunction(
      () => {
        const img = document.querySelector<HTMLImageElement>('.app-card img[src="/api/v1/apps/calc-tools/icon"]');
        return !!img && img.complete && img.naturalWidth > 0;
      },
      undefined,
      { timeout: 10_000 },
    );
    expect(await page.locator('#icon-dot').count()).toBe(0);
    await expectAccessible(page);
    await link.click();
    await page.waitForURL('**/apps/calc-tools');
    await page.getByRole('heading', { level: 1, name: 'Calc Tools' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('searches (q), filters by category and app_type and pages with shareable GET links', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '198.18.2.11' });
    await page.goto('/apps');
    await hydrated(page);
    await page.getByLabel('Search apps').fill('swap');
    await page.getByLabel('Search apps').press('Enter');
    // Empty fields stay out of the shareable address.
    await page.waitForURL((url) => url.pathname === '/apps' && url.search === '?q=swap');
    await page.waitForFunction(() => document.querySelectorAll('.app-card').length === 1);
    expect(await cardNames(page)).toEqual(['Chain Swap']);

    await page.goto('/apps');
    await hydrated(page);
    await page.getByLabel('Category').selectOption('productivity');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.search === '?category=productivity');
    await page.waitForFunction(() => document.querySelectorAll('.app-card').length === 1);
    expect(await cardNames(page)).toEqual(['Notes Pad']);

    await page.goto('/apps?app_type=dapp');
    expect(await cardNames(page)).toEqual(['Chain Swap']);
    expect(await page.getByLabel('Type').inputValue()).toBe('dapp');
    await page.goto('/apps?category=defi&app_type=web');
    expect(await cardNames(page)).toEqual([]);
    await page.getByText('No app matches these filters.').waitFor();

    // Paging: two per page, the API's own offset in the address.
    await page.goto('/apps?limit=2');
    const first = await cardNames(page);
    expect(first).toHaveLength(2);
    await page.getByText('Page 1 of 2').waitFor();
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/offset=2/);
    await page.getByText('Page 2 of 2').waitFor();
    const second = await cardNames(page);
    expect(second).toHaveLength(2);
    expect([...first, ...second].sort()).toEqual(['Calc Tools', 'Chain Swap', 'Notes Pad', 'Report Me']);
    expect(await page.getByRole('link', { name: 'Next' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Previous' }).getAttribute('href')).toBe('/apps?limit=2');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('works without JavaScript: the search form is a plain GET form', async () => {
    const context = await browser.newContext({
      baseURL: sys.baseUrl,
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': '198.18.2.12' },
    });
    const page = await context.newPage();
    await page.goto('/apps');
    await page.getByLabel('Search apps').fill('notes');
    await page.getByLabel('Type').selectOption('pwa');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=notes.*app_type=pwa|app_type=pwa.*q=notes/);
    expect(await cardNames(page)).toEqual(['Notes Pad']);
    await context.close();
  });
});

describe('/apps/{slug}', () => {
  it('shows the app with its icon as an image, title, canonical and Open Graph tags', async () => {
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '198.18.3.10' });
    const res = await page.goto('/apps/calc-tools');
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('Calc Tools · svc');
    const metaContent = (sel: string) => page.locator(sel).getAttribute('content');
    expect(await metaContent('meta[property="og:title"]')).toBe('Calc Tools');
    expect(await metaContent('meta[property="og:description"]')).toBe('A calculator for every day');
    expect(await metaContent('meta[property="og:url"]')).toBe(`${sys.baseUrl}/apps/calc-tools`);
    expect(await metaContent('meta[property="og:type"]')).toBe('website');
    expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(`${sys.baseUrl}/apps/calc-tools`);

    // The icon is an <img> of a data: URL, never SVG markup in the page.
    const img = page.locator('.app-detail-head .app-icon img');
    expect(await img.getAttribute('src')).toBe(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(ICON_SVG)}`);
    expect(await img.getAttribute('alt')).toBe('');
    expect(await page.locator('#icon-dot').count()).toBe(0);
    expect(await page.locator('.app-detail-head .app-icon').getAttribute('style')).toContain('#0f766e');

    const facts = (await page.locator('.app-facts').textContent()) ?? '';
    for (const text of ['Tools', 'Web app', 'In a window on your desktop', developer.username, '1.2.3']) {
      expect(facts).toContain(text);
    }
    expect(await page.locator('.tag-list').textContent()).toBe('reactwasm');
    // Logged out: installing and reporting start with logging in.
    expect(await page.getByRole('link', { name: 'Log in to install' }).getAttribute('href')).toBe(
      '/login?next=%2Fapps%2Fcalc-tools',
    );
    await expectAccessible(page);
    expect(errors).toEqual([]);

    // A dApp: its chain; an external app opens in a new tab without opener or referrer.
    await page.goto('/apps/chain-swap');
    expect(await page.locator('.app-facts').textContent()).toContain('Ethereum');
    const open = page.getByRole('link', { name: 'Open (new tab)' });
    expect(await open.getAttribute('href')).toBe('https://swap.example/');
    expect(await open.getAttribute('target')).toBe('_blank');
    expect(await open.getAttribute('rel')).toBe('noopener noreferrer');
    // An app without an icon: its initial letter on its card, no image.
    await page.goto('/apps?q=swap');
    expect(await page.locator('.app-card .app-icon').textContent()).toBe('C');
    expect(await page.locator('.app-card .app-icon img').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('answers an unknown app with the HTML 404 page', async () => {
    const res = await api('/apps/no-such-app', { ip: '198.18.3.11' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Page not found');
  });
});

describe('installing and the desktop', () => {
  it('sends a logged-out reader from /desktop to log in', async () => {
    const res = await api('/desktop', { ip: '198.18.4.9' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdesktop');
  });

  it('installs an app, opens it in the desktop sandboxed frame, and uninstalls it', async () => {
    const ip = '198.18.4.10';
    const user = await apiLogin(sys, 'desk-user@example.com', ip);
    const { page, errors, context } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    page.setDefaultTimeout(15_000);
    await page.goto('/apps/calc-tools');
    await page.getByRole('button', { name: 'Install to my desktop' }).click();
    await page.getByText('Installed on your desktop').waitFor();
    const installed = (await (await api('/api/v1/me/installed', { cookie: user.cookie, ip })).json()) as {
      apps: { slug: string }[];
    };
    expect(installed.apps.map((a) => a.slug)).toEqual(['calc-tools']);
    // The first install counts a download (shown once the page's data is revalidated, which
    // may finish after the confirmation appears).
    await page.waitForFunction(() => document.querySelector('.app-facts')?.textContent?.includes('Downloads1'));

    // An external app too (through the API): it opens in a new tab from the desktop.
    expect((await api('/api/v1/me/installed/chain-swap', { method: 'PUT', cookie: user.cookie, ip })).status).toBe(200);

    await page.getByRole('link', { name: 'Open on my desktop' }).click();
    // The frame's address does not resolve here: wait for the document, not its frames' load.
    await page.waitForURL('**/desktop?open=calc-tools', { waitUntil: 'domcontentloaded' });
    const frame = page.locator('iframe[title="Calc Tools"]');
    await frame.waitFor({ state: 'attached' });
    expect(await frame.getAttribute('src')).toBe(FRAMED_URL);
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-forms allow-popups allow-same-origin');
    expect(await frame.getAttribute('referrerpolicy')).toBe('no-referrer');
    await page.getByRole('heading', { level: 2, name: 'Calc Tools' }).waitFor();

    const external = page.getByRole('link', { name: /Chain Swap/ }).first();
    expect(await external.getAttribute('href')).toBe('https://swap.example/');
    expect(await external.getAttribute('target')).toBe('_blank');
    expect(await external.getAttribute('rel')).toBe('noopener noreferrer');

    // The desktop's CSP frames exactly the reader's iframe apps.
    const desktop = await api('/desktop', { cookie: user.cookie, ip });
    expect(desktop.status).toBe(200);
    const csp = desktop.headers.get('content-security-policy') ?? '';
    const frameSrc = /frame-src ([^;]*)/.exec(csp)?.[1];
    expect(frameSrc).toBe('https://calc-tools.example');

    // Desktop icons load the icon image too (the window's title bar has a small one).
    expect(await page.locator('.desktop-launch img[src="/api/v1/apps/calc-tools/icon"]').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'desktop');

    // Closing the window, then opening it again from its icon.
    await page.getByRole('link', { name: 'Close Calc Tools' }).click();
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 0);
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('link', { name: 'Calc Tools', exact: true }).click();
    await frame.waitFor({ state: 'attached' });
    expect(new URL(page.url()).searchParams.get('open')).toBe('calc-tools');

    // Uninstall (its window closed first: windows lie over the icons), after a confirmation step.
    await page.getByRole('link', { name: 'Close Calc Tools' }).click();
    const item = page.locator('.desktop-item', { has: page.getByRole('link', { name: 'Calc Tools', exact: true }) });
    await item.getByText('Uninstall', { exact: true }).click();
    await item.getByRole('button', { name: 'Yes, uninstall Calc Tools' }).click();
    await page.waitForFunction(() => !document.querySelector('main')?.textContent?.includes('Calc Tools'));
    expect(await page.locator('.desktop-item').count()).toBe(1);
    const after = (await (await api('/api/v1/me/installed', { cookie: user.cookie, ip })).json()) as {
      apps: { slug: string }[];
    };
    expect(after.apps.map((a) => a.slug)).toEqual(['chain-swap']);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe('opening iframe apps from elsewhere', () => {
  it('"Install and open" lands on the desktop with the app window, also after an in-app navigation', async () => {
    const ip = '198.18.5.10';
    const user = await apiLogin(sys, 'opener@example.com', ip);
    const { page, errors, context } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    page.setDefaultTimeout(15_000);
    await page.goto('/apps/notes-pad');
    await page.getByRole('button', { name: 'Install and open' }).click();
    await page.waitForURL('**/desktop?open=notes-pad', { waitUntil: 'domcontentloaded' });
    const frame = page.locator('iframe[title="Notes Pad"]');
    await frame.waitFor({ state: 'attached' });
    expect(await frame.getAttribute('src')).toBe('https://notes.example/');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');
    expect(await page.title()).toBe('My desktop · svc');

    // Reached through the header (a client-side navigation, whose document CSP frames
    // nothing), the desktop loads itself anew before framing an app: no CSP violation.
    await page.goto('/apps');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My desktop' }).click();
    await page.getByRole('heading', { level: 1, name: 'My desktop' }).waitFor();
    expect(await page.locator('iframe').count()).toBe(0);
    await page.getByRole('link', { name: 'Notes Pad', exact: true }).click();
    await page.waitForURL('**/desktop?open=notes-pad', { waitUntil: 'domcontentloaded' });
    await frame.waitFor({ state: 'attached' });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('speaks the reader’s language (Arabic, right to left)', async () => {
    const { page, errors, context } = await openPage(browser, sys, { locale: 'ar', clientIp: '198.18.5.11' });
    await page.goto('/apps?category=productivity');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.getByRole('heading', { level: 1, name: 'متجر التطبيقات' }).waitFor();
    expect(await page.getByLabel('الفئة').locator('option:checked').textContent()).not.toBe('productivity');
    expect(await page.locator('.app-card').textContent()).toContain('Notes Pad');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('reporting', () => {
  it('lets five readers report an app through the dialog until it is blocked', async () => {
    // The author cannot report their own app.
    {
      const { page, errors, context } = await openPage(browser, sys, { cookie: developer.cookie, clientIp: DEV_IP });
      await page.goto('/apps/report-me');
      await page.getByRole('button', { name: 'Report' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Send report' }).click();
      await page.getByText('You cannot report your own app.').waitFor();
      expect(errors).toEqual([]);
      await context.close();
    }
    for (let i = 1; i <= 5; i += 1) {
      const ip = `198.18.${10 + i}.10`;
      const user = await apiLogin(sys, `reporter-${i}@example.com`, ip);
      const { page, errors, context } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
      await page.goto('/apps/report-me');
      await page.getByRole('button', { name: 'Report' }).click();
      const dialog = page.getByRole('dialog', { name: 'Report “Report Me”' });
      await dialog.waitFor();
      await dialog.getByLabel('Reason').selectOption(i % 2 === 0 ? 'malware' : 'spam');
      await dialog.getByLabel('Details (optional)').fill(`Reporter ${i} says no`);
      await dialog.getByText('18 / 500 characters').waitFor();
      // maxlength counts UTF-16 units: twice the 500-character limit.
      expect(await dialog.getByLabel('Details (optional)').getAttribute('maxlength')).toBe('1000');
      if (i === 1) await expectAccessible(page);
      await dialog.getByRole('button', { name: 'Send report' }).click();
      if (i < 5) {
        await dialog.getByText(`Reports still needed for an automatic block: ${5 - i}.`).waitFor();
        // Once is enough: a second report is refused in words.
        if (i === 1) {
          await page.reload();
          await page.getByRole('button', { name: 'Report' }).click();
          await page.getByRole('dialog').getByRole('button', { name: 'Send report' }).click();
          await page.getByText('You have already reported this app.').waitFor();
        }
      } else {
        await dialog.getByText('The app reached the limit of reports and is now blocked.').waitFor();
      }
      expect(errors).toEqual([]);
      await context.close();
    }
    // Gone from the store, and its page is the 404 page.
    const { page, errors, context } = await openPage(browser, sys, { clientIp: '198.18.30.10' });
    await page.goto('/apps');
    expect((await cardNames(page)).sort()).toEqual(['Calc Tools', 'Chain Swap', 'Notes Pad']);
    const res = await page.goto('/apps/report-me');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
    await context.close();
  }, 90_000);
});
