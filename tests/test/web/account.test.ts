// Login and the account pages in a real browser, through the gateway: the email-code login
// (pointer and keyboard), its errors in words (wrong code, the per-address rate limit with
// the wait, the mail provider failing), `?next=` (back where the reader came from, never to
// another origin), /me (username, logout, sign out everywhere), /me/bookmarks and /me/submissions.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { codeFor } from '../login.js';
import { apiLogin, expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

let sys: WebSystem;
let browser: Browser;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

// Each test its own client address: the per-network login limits stay apart.
let ipCounter = 20;
const nextIp = () => `198.51.100.${ipCounter++}`;

/**
 * The page and console errors, without Chromium's own "Failed to load resource" line for an
 * API answer the test provokes on purpose (the page handles it and says so in words).
 */
const unexpected = (errors: string[], ...statuses: number[]) =>
  errors.filter((e) => !statuses.some((s) => e.includes(`Failed to load resource: the server responded with a status of ${s}`)));

/** The account menu's summary: the username in the header. */
const headerUser = (page: Page) => page.locator('header .account-menu summary');

/** Waits until the page has hydrated (the login form's button is enabled). */
async function hydrated(page: Page, name: RegExp | string) {
  await page.getByRole('button', { name }).and(page.locator(':enabled')).first().waitFor({ timeout: 15_000 });
}

async function api(path: string, init: { method?: string; cookie?: string; body?: unknown; ip?: string } = {}) {
  const res = await fetch(`${sys.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': init.ip ?? '198.51.100.200',
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function submitSite(cookie: string, path: string): Promise<string> {
  const res = await api('/api/sites', { method: 'POST', cookie, body: { url: sys.website.url(path) } });
  expect([200, 201]).toContain(res.status);
  return (res.body.site as { id: string }).id;
}

describe('login with an emailed code', () => {
  it('logs in through the form and lands back on the page of ?next= with the username in the header', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      // A logged-out visit to an account page goes to the login page that comes back.
      await page.goto('/me/bookmarks');
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(new URL(page.url()).searchParams.get('next')).toBe('/me/bookmarks');
      expect(await page.title()).toMatch(/Log in/);
      expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');

      const email = page.getByLabel('Email address');
      expect(await email.getAttribute('type')).toBe('email');
      expect(await email.getAttribute('autocomplete')).toBe('email');
      await hydrated(page, 'Send me a code');
      await expectAccessible(page);
      await screenshot(page, 'login');

      await email.fill('ada.lovelace@example.com');
      await page.getByRole('button', { name: 'Send me a code' }).click();
      const codeField = page.getByLabel('6-digit code');
      await codeField.waitFor();
      expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
      expect(await codeField.getAttribute('inputmode')).toBe('numeric');
      expect(await codeField.getAttribute('pattern')).toBe('[0-9]{6}');
      await page.getByText('We sent a 6-digit code to ada.lovelace@example.com.').waitFor();
      await expectAccessible(page);

      await codeField.fill(await codeFor(sys.resend, 'ada.lovelace@example.com'));
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/me/bookmarks');
      await headerUser(page).waitFor();
      expect(await headerUser(page).innerText()).toContain('ada');
      await page.getByRole('heading', { level: 1, name: 'Bookmarks' }).waitFor();

      // Logged in, /login sends the reader on, to `next` or home — never to another origin.
      await page.goto('/login?next=%2Fme%2Fsubmissions');
      expect(new URL(page.url()).pathname).toBe('/me/submissions');
      await page.goto('/login?next=%2F%2Fevil.example%2F');
      expect(page.url()).toBe(`${sys.baseUrl}/`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says in words that a code is wrong, moves the focus there, and offers a new code and another email', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      await page.goto('/login');
      await hydrated(page, 'Send me a code');
      await page.getByLabel('Email address').fill('wrong.code@example.com');
      await page.getByRole('button', { name: 'Send me a code' }).click();
      const real = await codeFor(sys.resend, 'wrong.code@example.com');
      const wrong = real === '000000' ? '111111' : '000000';
      await page.getByLabel('6-digit code').fill(wrong);
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
      const error = page.getByText('This code is wrong or has expired. Check it, or ask for a new one.');
      await error.waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'login-error');
      expect(await page.locator('#login-error').evaluate((el) => el.closest('[aria-live]') !== null)).toBe(true);
      expect(await page.getByLabel('6-digit code').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page);
      expect(new URL(page.url()).pathname).toBe('/login');

      // "Send a new code" mails another one; it logs in.
      await page.getByRole('button', { name: 'Send a new code' }).click();
      await page.getByText('We sent a new code to wrong.code@example.com.').waitFor();
      // "Use another email" goes back to the address, focused.
      await page.getByRole('button', { name: 'Use another email' }).click();
      await page.waitForFunction(() => document.activeElement?.id === 'login-email');
      expect(await page.getByLabel('Email address').inputValue()).toBe('wrong.code@example.com');
      expect(unexpected(errors, 400)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the wait when codes for one address are asked too often (429)', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      await page.goto('/login');
      await hydrated(page, 'Send me a code');
      await page.getByLabel('Email address').fill('impatient@example.com');
      await page.getByRole('button', { name: 'Send me a code' }).click();
      await page.getByLabel('6-digit code').waitFor();
      // LOGIN_LIMITS.sendCode: 3 a minute per address. Ask again until refused.
      const resend = page.getByRole('button', { name: 'Send a new code' });
      const limited = page.getByText(/Too many attempts\. Please wait \d+ seconds and try again\./);
      for (let i = 0; i < 5 && !(await limited.isVisible()); i++) {
        await resend.and(page.locator(':enabled')).waitFor();
        await resend.click();
        await page.waitForFunction(() => !document.querySelector('.login-page button[disabled]'));
      }
      await limited.waitFor();
      const seconds = Number(/wait (\d+) seconds/.exec(await limited.innerText())![1]);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
      await page.waitForFunction(() => document.activeElement?.id === 'login-error');
      expect(unexpected(errors, 429)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says so when the login email could not be sent (the mail provider failed: 502)', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      await page.goto('/login');
      await hydrated(page, 'Send me a code');
      sys.resend.failNextRequest();
      await page.getByLabel('Email address').fill('mail.fails@example.com');
      await page.getByRole('button', { name: 'Send me a code' }).click();
      await page.getByText('The email with your code could not be sent. Please try again in a moment.').waitFor();
      // Still on the email step: the reader can try again.
      await page.getByLabel('Email address').waitFor();
      expect(await page.getByLabel('6-digit code').count()).toBe(0);
      expect(unexpected(errors, 502)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('works with the keyboard alone: Tab to the field, type, Enter; the code, Enter', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      await page.goto('/login?next=%2Fme');
      await hydrated(page, 'Send me a code');
      for (let i = 0; i < 40; i++) {
        if (await page.evaluate(() => document.activeElement?.id === 'login-email')) break;
        await page.keyboard.press('Tab');
      }
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('login-email');
      await page.keyboard.type('keys.only@example.com');
      await page.keyboard.press('Enter');
      // The focus moves to the code field by itself.
      await page.waitForFunction(() => document.activeElement?.id === 'login-code');
      await page.keyboard.type(await codeFor(sys.resend, 'keys.only@example.com'));
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/me');
      await page.getByText('keys.only@example.com').waitFor();
      await headerUser(page).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('renders without JavaScript, saying that logging in needs it', async () => {
    const context = await browser.newContext({ baseURL: sys.baseUrl, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto('/login');
      await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
      // (Playwright's text matching skips <noscript>; without JavaScript it is plain markup.)
      expect(await page.locator('.account-noscript').innerText()).toContain('Logging in needs JavaScript.');
      expect(await page.getByLabel('Email address').count()).toBe(1);
      // Its button waits for JavaScript rather than posting the form nowhere.
      expect(await page.getByRole('button', { name: 'Send me a code' }).isDisabled()).toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('in the reader\'s language', () => {
  it('shows the login page in Arabic, right to left, and an account page in German', async () => {
    const { page, context, errors } = await openPage(browser, sys, { clientIp: nextIp() });
    try {
      await page.goto('/login?lang=ar');
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      await page.getByRole('heading', { level: 1, name: 'تسجيل الدخول' }).waitFor();
      await page.getByLabel('عنوان البريد الإلكتروني').waitFor();
      expect(await page.title()).toContain('تسجيل الدخول');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
    const ip = nextIp();
    const user = await apiLogin(sys, 'leser@example.com', ip);
    const german = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip, locale: 'de-DE' });
    try {
      await german.page.goto('/me/bookmarks');
      await german.page.getByRole('heading', { level: 1, name: 'Lesezeichen' }).waitFor();
      await german.page.getByText('Du hast noch keine Website als Lesezeichen gespeichert.').waitFor();
      expect(german.errors).toEqual([]);
    } finally {
      await german.context.close();
    }
  });
});

describe('the account pages', () => {
  it('changes the username on /me, and the header shows the new name', async () => {
    const ip = nextIp();
    const user = await apiLogin(sys, 'rename.me@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      expect(await page.title()).toMatch(/Your account/);
      expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');
      await page.getByText('rename.me@example.com').waitFor();
      expect(await headerUser(page).innerText()).toContain(user.username);
      await hydrated(page, 'Save username');
      await expectAccessible(page);

      const field = page.getByLabel('New username');
      // Refused by the API's rule (400): said in words.
      await field.fill('a b');
      await page.getByRole('button', { name: 'Save username' }).click();
      await page.getByText('This username is not allowed: use 3 to 32 letters, digits, _ or -.').waitFor();

      const wanted = `Renamed_${Date.now().toString(36)}`;
      await field.fill(wanted);
      await page.getByRole('button', { name: 'Save username' }).click();
      await page.getByText(`Your username is now ${wanted}.`).waitFor();
      await page.waitForFunction(
        (name) => document.querySelector('header .account-menu summary')?.textContent?.includes(name) ?? false,
        wanted,
      );
      // And it stays after a reload (the fresh session cookie carries it).
      await page.reload();
      expect(await headerUser(page).innerText()).toContain(wanted);
      expect(await page.getByTestId('current-username').innerText()).toBe(wanted);
      expect(unexpected(errors, 400)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses a username somebody else has (409), in words', async () => {
    const ip = nextIp();
    const first = await apiLogin(sys, 'taken.one@example.com', ip);
    const second = await apiLogin(sys, 'taken.two@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: second.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      await hydrated(page, 'Save username');
      await page.getByLabel('New username').fill(first.username);
      await page.getByRole('button', { name: 'Save username' }).click();
      await page.getByText('This username is already taken. Please choose another one.').waitFor();
      expect(unexpected(errors, 409)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('logs out: the header offers "Log in" again and /me sends to the login page', async () => {
    const ip = nextIp();
    const user = await apiLogin(sys, 'leaving@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      await hydrated(page, 'Log out');
      await page.locator('main').getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.locator('header').getByRole('link', { name: 'Log in' }).waitFor();
      await page.goto('/me');
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(new URL(page.url()).searchParams.get('next')).toBe('/me');
      // The API no longer accepts the old session either.
      expect((await api('/api/auth/me', { cookie: user.cookie })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signs out everywhere: this browser lands logged out, and the session of another device ends too', async () => {
    const ip = nextIp();
    const user = await apiLogin(sys, 'everywhere@example.com', ip);
    const otherDevice = await apiLogin(sys, 'everywhere@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      await hydrated(page, 'Sign out everywhere');
      const section = page.getByRole('region', { name: 'Everywhere you are logged in' });
      await section.getByText(/^Ends your session on every device and in every browser/).waitFor();
      await expectAccessible(page);
      await section.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.locator('header').getByRole('link', { name: 'Log in' }).waitFor();
      await page.goto('/me');
      expect(new URL(page.url()).pathname).toBe('/login');
      expect((await api('/api/auth/me', { cookie: user.cookie })).status).toBe(401);
      expect((await api('/api/auth/me', { cookie: otherDevice.cookie })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says in words when signing out everywhere is refused (429), and stays', async () => {
    const ip = nextIp();
    const email = 'everywhere.often@example.com';
    // Two an hour per user: used up through the API, each from a fresh login.
    for (let i = 0; i < 2; i++) {
      const { cookie } = await apiLogin(sys, email, ip);
      expect((await api('/api/auth/logout-all', { method: 'POST', cookie, ip })).status).toBe(200);
    }
    const user = await apiLogin(sys, email, ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      await hydrated(page, 'Sign out everywhere');
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByText(/^Too many attempts\. Please wait \d+ minutes and try again\.$/).waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'everywhere-error');
      expect(new URL(page.url()).pathname).toBe('/me');
      expect((await api('/api/auth/me', { cookie: user.cookie })).status).toBe(200);
      expect(unexpected(errors, 429)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('redirects logged-out visitors of every account page with a 302 to /login?next=', async () => {
    for (const path of ['/me', '/me/bookmarks', '/me/submissions']) {
      const res = await fetch(`${sys.baseUrl}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': '198.51.100.250' } });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('lists bookmarks on /me/bookmarks and removes one; it is gone after a reload', async () => {
    const ip = nextIp();
    const user = await apiLogin(sys, 'bookmarker@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me/bookmarks');
      await page.getByText('You have not bookmarked any site yet.').waitFor();

      const siteId = await submitSite(user.cookie, '/bookmarked-page');
      expect((await api('/api/bookmarks', { method: 'POST', cookie: user.cookie, body: { site_id: siteId } })).status).toBe(201);

      await page.reload();
      const siteLink = page.locator(`main a[href="/site/${siteId}"]`);
      await siteLink.waitFor();
      expect(await page.locator('main a[href^="http"]').first().getAttribute('href')).toBe(sys.website.url('/bookmarked-page'));
      await hydrated(page, /Remove bookmark/);
      await expectAccessible(page);

      await page.getByRole('button', { name: /Remove bookmark/ }).click();
      await page.getByText(/was removed from your bookmarks\./).waitFor();
      expect(await siteLink.count()).toBe(0);
      await page.reload();
      await page.getByText('You have not bookmarked any site yet.').waitFor();
      expect(await page.locator(`main a[href="/site/${siteId}"]`).count()).toBe(0);
      expect(((await api('/api/bookmarks', { cookie: user.cookie })).body.bookmarks as unknown[]).length).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists the sites the user submitted on /me/submissions', async () => {
    const ip = nextIp();
    const user = await apiLogin(sys, 'submitter@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me/submissions');
      expect(await page.title()).toMatch(/My submissions/);
      await page.getByText('You have not shared any site yet.').waitFor();
      const siteId = await submitSite(user.cookie, '/my-own-page');
      await page.reload();
      await page.locator(`main a[href="/site/${siteId}"]`).waitFor();
      await page.getByText(/First shared on/).waitFor();
      await expectAccessible(page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
