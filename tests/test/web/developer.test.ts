// The developer dashboard in a real browser: submitting an app (checked in the browser with
// the contract's schema before any request, then by the API), editing it with a live icon
// preview, and its API keys: shown once, listed by prefix, revoked (the key then gets 401);
// withdrawing an app and deleting it for good, each after a confirmation, with and without
// JavaScript.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { apiLogin, expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

// A real browser against the whole system: generous when the machine is busy.
jest.setTimeout(60_000);

let sys: WebSystem;
let browser: Browser;
let dev: { cookie: string; username: string };

const DEV_IP = '198.18.40.10';
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#fff"/></svg>';

const api = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; ip?: string } = {}) =>
  fetch(`${sys.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-forwarded-for': init.ip ?? DEV_IP,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    redirect: 'manual',
  });

/** Resolves once React has hydrated the page (its DOM nodes carry React's fiber keys). */
const hydrated = (page: Page) =>
  page.waitForFunction(() => {
    const main = document.querySelector('main');
    return !!main && Object.keys(main).some((k) => k.startsWith('__reactFiber'));
  });

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
  dev = await apiLogin(sys, 'dashboard-dev@example.com', DEV_IP);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

describe('/developer', () => {
  it('sends a logged-out reader to log in', async () => {
    const res = await api('/developer', { ip: '198.18.41.1' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdeveloper');
  });

  it('submits an app: a bad field is refused in the browser first, then the API has its say', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: dev.cookie, clientIp: DEV_IP });
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() !== 'GET') posts.push(r.url());
    });
    const res = await page.goto('/developer');
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('Developer dashboard · svc');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');
    await page.getByText('You have not submitted an app yet.').waitFor();
    await hydrated(page);

    await page.getByLabel('Slug (address name)').fill('pixel-board');
    await page.getByLabel('Name', { exact: true }).fill('Pixel Board');
    await page.getByLabel('Address (URL)').fill('http://pixel-board.example/');
    await page.getByLabel('Description').fill('Draw pixels together');
    await page.getByLabel('Category').selectOption('entertainment');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.getByText('Enter a valid address starting with https:// (up to 2048 characters).').waitFor();
    expect(await page.getByLabel('Address (URL)').getAttribute('aria-invalid')).toBe('true');
    expect(posts).toEqual([]);

    // A bad slug too, reported next to its own field.
    await page.getByLabel('Slug (address name)').fill('Pixel Board');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.getByText('Use 3–64 lower-case letters and digits separated by single hyphens, such as my-app.').waitFor();
    expect(posts).toEqual([]);

    await page.getByLabel('Slug (address name)').fill('pixel-board');
    await page.getByLabel('Address (URL)').fill('https://pixel-board.example/');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.waitForURL('**/developer/apps/pixel-board?created=1');
    await page.getByText('Your app was published.').waitFor();
    expect(posts.length).toBeGreaterThan(0);
    const detail = (await (await api('/api/v1/apps/pixel-board')).json()) as { app: { category: string; url: string } };
    expect(detail.app).toMatchObject({ category: 'entertainment', url: 'https://pixel-board.example/' });

    // The same slug again: the API's own answer (409), in words.
    await page.goto('/developer');
    await page.getByRole('link', { name: 'Pixel Board' }).waitFor();
    await hydrated(page);
    await page.getByLabel('Slug (address name)').fill('pixel-board');
    await page.getByLabel('Name', { exact: true }).fill('Pixel Board again');
    await page.getByLabel('Address (URL)').fill('https://pixel-board.example/2');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.getByText(/That conflicts with what is already there: Slug already taken/).waitFor();
    await expectAccessible(page);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('works without JavaScript: the server checks the same schema and submits', async () => {
    const context = await browser.newContext({
      baseURL: sys.baseUrl,
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': DEV_IP },
    });
    const eq = dev.cookie.indexOf('=');
    await context.addCookies([
      { name: dev.cookie.slice(0, eq), value: dev.cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' },
    ]);
    const page = await context.newPage();
    await page.goto('/developer');
    await page.getByLabel('Slug (address name)').fill('no-js-app');
    await page.getByLabel('Name', { exact: true }).fill('No JS App');
    await page.getByLabel('Address (URL)').fill('ftp://no-js.example/');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.getByText('Enter a valid address starting with https:// (up to 2048 characters).').waitFor();
    expect((await api('/api/v1/apps/no-js-app')).status).toBe(404);
    // The answer keeps what was typed.
    expect(await page.getByLabel('Slug (address name)').inputValue()).toBe('no-js-app');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('No JS App');
    await page.getByLabel('Address (URL)').fill('https://no-js.example/');
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.waitForURL('**/developer/apps/no-js-app?created=1');
    await page.getByRole('heading', { level: 1, name: 'Manage No JS App' }).waitFor();
    expect((await api('/api/v1/apps/no-js-app')).status).toBe(200);
    await context.close();
  });

  it('edits an app with a live icon preview, and the change shows on its public page', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: dev.cookie, clientIp: DEV_IP });
    await page.goto('/developer/apps/pixel-board');
    expect(await page.title()).toBe('Manage Pixel Board · svc');
    await hydrated(page);
    await page.getByLabel('Name', { exact: true }).fill('Pixel Board Pro');
    await page.getByLabel('Description').fill('Draw pixels together, now in colour');
    await page.getByLabel('Icon gradient start').fill('#0f766e');
    await page.getByLabel('Icon gradient end').fill('#1e3a8a');
    await page.getByLabel('Icon (SVG markup)').fill(ICON_SVG);
    await page.getByLabel('Technologies').fill('canvas, websocket');
    await page.getByLabel('SDK version (optional)').fill('not-a-version');
    // The preview follows the fields at once.
    const preview = page.locator('.icon-preview .app-icon');
    expect(await preview.locator('img').getAttribute('src')).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(ICON_SVG)}`,
    );
    expect(await preview.getAttribute('style')).toContain('rgb(15, 118, 110)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Use a semantic version such as 1.2.3.').waitFor();
    await page.getByLabel('SDK version (optional)').fill('2.0.1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();

    await page.goto('/apps/pixel-board');
    await page.getByRole('heading', { level: 1, name: 'Pixel Board Pro' }).waitFor();
    expect(await page.locator('.app-description').textContent()).toBe('Draw pixels together, now in colour');
    expect(await page.locator('.app-facts').textContent()).toContain('2.0.1');
    expect(await page.locator('.tag-list').textContent()).toBe('canvaswebsocket');
    expect(await page.locator('.app-detail-head .app-icon img').getAttribute('src')).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(ICON_SVG)}`,
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates an API key shown once, lists it by prefix, revokes it, and the key then gets 401', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: dev.cookie, clientIp: DEV_IP });
    await page.goto('/developer/apps/pixel-board');
    await page.getByText('No keys yet.').waitFor();
    await hydrated(page);
    await page.getByRole('button', { name: 'Create a key' }).click();
    const secret = page.getByLabel('API key', { exact: true });
    await secret.waitFor();
    const key = await secret.inputValue();
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]+$/);
    expect(await secret.getAttribute('readonly')).not.toBeNull();
    await page.getByText('Copy it now: it will not be shown again.').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();

    // The key works.
    const me = await api('/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);

    await expectAccessible(page);
    await screenshot(page, 'developer');

    // After a reload only its prefix is listed.
    await page.reload();
    await page.getByRole('cell', { name: /…$/ }).first().waitFor();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    const keys = (await (await api('/api/v1/apps/pixel-board/keys', { headers: { cookie: dev.cookie } })).json()) as {
      keys: { prefix: string }[];
    };
    expect(keys.keys).toHaveLength(1);
    expect(key.startsWith(keys.keys[0]!.prefix)).toBe(true);
    await page.getByRole('cell', { name: `${keys.keys[0]!.prefix}…` }).waitFor();
    await page.getByRole('row', { name: /Active/ }).waitFor();

    // Revoke, after a confirmation step.
    await page.locator('.revoke summary').click();
    await page.getByRole('button', { name: /^Yes, revoke/ }).click();
    await page.getByRole('row', { name: /Revoked/ }).waitFor();
    expect(await page.locator('.revoke').count()).toBe(0);
    const refused = await api('/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is a 404 page for an app that is not the reader’s own', async () => {
    const ip = '198.18.42.10';
    const other = await apiLogin(sys, 'someone-else@example.com', ip);
    const { page, context } = await openPage(browser, sys, { cookie: other.cookie, clientIp: ip });
    const res = await page.goto('/developer/apps/pixel-board');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect((await page.goto('/developer/apps/no-such-app'))?.status()).toBe(404);
    await context.close();
  });

  it('marks a blocked app as blocked in the dashboard', async () => {
    for (let i = 1; i <= 5; i += 1) {
      const ip = `198.18.${50 + i}.10`;
      const user = await apiLogin(sys, `dev-reporter-${i}@example.com`, ip);
      const res = await api('/api/v1/apps/pixel-board/report', {
        method: 'POST',
        headers: { cookie: user.cookie },
        body: { reason: 'spam' },
        ip,
      });
      expect(res.status).toBe(200);
    }
    const { page, errors, context } = await openPage(browser, sys, { cookie: dev.cookie, clientIp: DEV_IP });
    await page.goto('/developer');
    const row = page.locator('.dev-app', { has: page.getByRole('link', { name: 'Pixel Board Pro' }) });
    await row.getByText('Blocked', { exact: true }).waitFor();
    expect(await row.textContent()).toContain('hidden from the app store');
    // The author still manages it.
    const manage = await page.goto('/developer/apps/pixel-board');
    expect(manage?.status()).toBe(200);
    await expectAccessible(page);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe('withdrawing an app', () => {
  const ip = '198.18.60.10';
  const readerIp = '198.18.60.11';
  let author: { cookie: string };
  let reader: { cookie: string };

  beforeAll(async () => {
    author = await apiLogin(sys, 'withdrawing-dev@example.com', ip);
    reader = await apiLogin(sys, 'withdrawn-reader@example.com', readerIp);
    for (const [slug, name] of [
      ['fading-app', 'Fading App'],
      ['quiet-exit', 'Quiet Exit'],
    ]) {
      const created = await api('/api/v1/apps', {
        method: 'POST',
        headers: { cookie: author.cookie },
        body: { slug, name, url: `https://${slug}.example/` },
        ip,
      });
      expect(created.status).toBe(201);
    }
    const installed = await api('/api/v1/me/installed/fading-app', { method: 'PUT', headers: { cookie: reader.cookie }, ip: readerIp });
    expect(installed.status).toBe(200);
  });

  it('withdraws after a second click: gone from the store and the desktop, then deleted for good', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: author.cookie, clientIp: ip });
    await page.goto('/developer/apps/fading-app');
    await hydrated(page);
    const panel = page.getByTestId('withdraw-panel');
    // One click opens the confirmation; nothing is sent yet.
    await panel.getByText('Withdraw', { exact: true }).click();
    expect((await api('/api/v1/apps/fading-app')).status).toBe(200);
    await panel.getByRole('button', { name: 'Yes, withdraw Fading App' }).click();

    const withdrawn = page.getByTestId('withdrawn-panel');
    await withdrawn.getByRole('heading', { name: 'Withdrawn' }).waitFor();
    expect(await withdrawn.textContent()).toContain('Deleted for good on');
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create a key' }).count()).toBe(0);
    expect((await api('/api/v1/apps/fading-app')).status).toBe(404);
    const listed = (await (await api('/api/v1/apps?q=fading')).json()) as { meta: { total: number } };
    expect(listed.meta.total).toBe(0);
    // The reader's desktop no longer shows it.
    const desktop = await api('/desktop', { headers: { cookie: reader.cookie }, ip: readerIp });
    expect(desktop.status).toBe(200);
    expect(await desktop.text()).not.toContain('Fading App');
    // The history names the withdrawal as the author's.
    await page.getByTestId('author-audit').getByRole('cell', { name: 'Withdrawn' }).waitFor();
    await expectAccessible(page);

    // The dashboard marks it and says when it goes.
    await page.goto('/developer');
    const row = page.locator('.dev-app', { has: page.getByRole('link', { name: 'Fading App' }) });
    await row.getByText('Withdrawn', { exact: true }).waitFor();
    expect(await row.textContent()).toContain('Deleted for good on');

    await page.goto('/developer/apps/fading-app');
    await hydrated(page);
    await page.getByText('Delete for good', { exact: true }).click();
    await page.getByRole('button', { name: 'Yes, delete Fading App for good' }).click();
    await page.waitForURL('**/developer?deleted=1');
    await page.getByText('The app was deleted for good.', { exact: false }).waitFor();
    expect(await page.getByRole('link', { name: 'Fading App' }).count()).toBe(0);
    expect(errors).toEqual([]);
    // Its page is gone (the browser logs that 404 as a console error: checked above, before it).
    expect((await page.goto('/developer/apps/fading-app'))?.status()).toBe(404);
    // The name stays reserved.
    const again = await api('/api/v1/apps', {
      method: 'POST',
      headers: { cookie: reader.cookie },
      body: { slug: 'fading-app', name: 'Mine', url: 'https://mine.example/' },
      ip: readerIp,
    });
    expect(again.status).toBe(409);
    await context.close();
  });

  it('works without JavaScript: the disclosure opens and the form posts', async () => {
    const context = await browser.newContext({
      baseURL: sys.baseUrl,
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': ip },
    });
    const eq = author.cookie.indexOf('=');
    await context.addCookies([
      { name: author.cookie.slice(0, eq), value: author.cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' },
    ]);
    const page = await context.newPage();
    await page.goto('/developer/apps/quiet-exit');
    await page.getByText('Withdraw', { exact: true }).click();
    await page.getByRole('button', { name: 'Yes, withdraw Quiet Exit' }).click();
    await page.getByTestId('withdrawn-panel').getByRole('heading', { name: 'Withdrawn' }).waitFor();
    expect((await api('/api/v1/apps/quiet-exit')).status).toBe(404);
    const mine = (await (await api('/api/v1/me/apps', { headers: { cookie: author.cookie }, ip })).json()) as {
      apps: { slug: string; status: string }[];
    };
    expect(mine.apps.find((a) => a.slug === 'quiet-exit')?.status).toBe('withdrawn');

    await page.getByText('Delete for good', { exact: true }).click();
    await page.getByRole('button', { name: 'Yes, delete Quiet Exit for good' }).click();
    await page.waitForURL('**/developer?deleted=1');
    await page.getByText('The app was deleted for good.', { exact: false }).waitFor();
    const after = (await (await api('/api/v1/me/apps', { headers: { cookie: author.cookie }, ip })).json()) as {
      apps: { slug: string }[];
    };
    expect(after.apps.map((a) => a.slug)).not.toContain('quiet-exit');
    await context.close();
  });
});
