// "Delete my account" on /me in a real browser, through the gateway to auth: the two steps
// (what deletion does and a code to the account's address, then the code), a wrong code said
// in words with the reader still logged in, then the right one: the home page, logged out,
// the old session refused, and the address free to sign up again as a new account.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { codeFor } from '../login.js';
import { apiLogin, expectAccessible, launchBrowser, openPage } from './browser.js';
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

/** Page errors without Chromium's line for an API refusal the test provokes on purpose. */
const unexpected = (errors: string[], ...statuses: number[]) =>
  errors.filter((e) => !statuses.some((s) => e.includes(`Failed to load resource: the server responded with a status of ${s}`)));

/** The user id behind a session cookie, or the status when auth refuses it. */
async function me(cookie: string): Promise<{ status: number; id?: string }> {
  const res = await fetch(`${sys.baseUrl}/api/auth/me`, { headers: { cookie, 'x-forwarded-for': '198.51.100.199' } });
  if (res.status !== 200) return { status: res.status };
  const body = (await res.json()) as { user: { id: string } };
  return { status: res.status, id: body.user.id };
}

/** The code of the first email to `email` after the `before`th one sent (the login's is older). */
async function newCodeFor(email: string, before: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (!sys.resend.sent.slice(before).some((m) => [m.to].flat().includes(email))) {
    if (Date.now() > deadline) throw new Error(`no new email to ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return codeFor(sys.resend, email);
}

/** Opens the second step once the page has hydrated. */
async function openDeletion(page: Page) {
  const open = page.getByRole('button', { name: 'Delete my account…' });
  await open.and(page.locator(':enabled')).waitFor({ timeout: 15_000 });
  await open.click();
  await page.waitForFunction(() => document.activeElement?.id === 'delete-what');
}

describe('Delete my account on /me', () => {
  it('explains, mails a code, refuses a wrong one in words, then deletes and logs out', async () => {
    const ip = '198.51.100.80';
    const email = 'leaving@example.com';
    const user = await apiLogin(sys, email, ip);
    const before = await me(user.cookie);
    expect(before.status).toBe(200);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      const section = page.getByRole('region', { name: 'Delete your account' });
      await section.getByText('Deletes your account for good. This cannot be undone.').waitFor();
      // Last on the page, after signing out everywhere.
      expect(await page.locator('section.account-page > section').last().getAttribute('aria-labelledby')).toBe('delete-heading');
      await openDeletion(page);

      // Step one: what deletion does, the export first, and where the code goes.
      await section.getByRole('heading', { level: 3, name: 'What deleting your account does' }).waitFor();
      const items = await section.getByRole('list', { name: 'What deleting your account does' }).getByRole('listitem').allInnerTexts();
      expect(items).toEqual([
        'Every session ends, on every device, this one included.',
        'Your apps are withdrawn and deleted for good.',
        'Your bookmarks, boosts, submission history and app installs are deleted.',
        'Sites you submitted stay public, but no longer show you.',
        'Your chat messages stay, shown as from “Deleted user”.',
        'Reports you made stay for moderation, without your name.',
        'Your email address can sign up again later, as a new account.',
      ]);
      expect(await section.getByRole('link', { name: 'Go to “Your data”' }).getAttribute('href')).toBe('#data-export-heading');
      await section.getByText(`To confirm, we email a 6-digit code to ${email}.`).waitFor();
      await expectAccessible(page);

      // Step two: the code, mailed to the account's address.
      const mailed = sys.resend.sent.length;
      await section.getByRole('button', { name: 'Send me a code' }).click();
      await section.getByText(`We sent a 6-digit code to ${email}.`).waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'delete-code');
      const codeField = section.getByLabel('6-digit code');
      expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
      expect(await codeField.getAttribute('inputmode')).toBe('numeric');
      expect(await codeField.getAttribute('pattern')).toBe('[0-9]{6}');
      const code = await newCodeFor(email, mailed);
      const confirm = section.getByRole('button', { name: 'Delete my account for good' });
      expect(await confirm.getAttribute('class')).toBe('danger');

      // A wrong code: said in words, focused, and the reader is still there, logged in.
      await codeField.fill(code === '000000' ? '111111' : '000000');
      await confirm.click();
      await section.getByText('That code is wrong or has expired: send a new one.').waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'delete-error');
      expect(await page.locator('#delete-error').evaluate((el) => el.closest('[aria-live]') !== null)).toBe(true);
      expect(await codeField.getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page);
      expect(new URL(page.url()).pathname).toBe('/me');
      expect(await me(user.cookie)).toEqual(before);

      // The right code: the home page, logged out; the old session is refused everywhere.
      await codeField.fill(code);
      await confirm.click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.locator('header').getByRole('link', { name: 'Log in' }).waitFor();
      expect((await context.cookies()).some((c) => c.name === 'sn_token')).toBe(false);
      expect((await me(user.cookie)).status).toBe(401);
      await page.goto('/me');
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(unexpected(errors, 400)).toEqual([]);
    } finally {
      await context.close();
    }

    // The address signs up again as somebody new.
    const again = await apiLogin(sys, email, ip);
    const after = await me(again.cookie);
    expect(after.status).toBe(200);
    expect(after.id).not.toBe(before.id);
  }, 90_000);

  it('says so when the code could not be mailed (502), and stays on the first step', async () => {
    const ip = '198.51.100.81';
    const user = await apiLogin(sys, 'mail.down@example.com', ip);
    const { page, context, errors } = await openPage(browser, sys, { cookie: user.cookie, clientIp: ip });
    try {
      await page.goto('/me');
      await openDeletion(page);
      sys.resend.failNextRequest();
      await page.getByRole('button', { name: 'Send me a code' }).click();
      await page.getByText('The email with your code could not be sent. Please try again in a moment.').waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'delete-error');
      expect(await page.getByLabel('6-digit code').count()).toBe(0);

      // "Keep my account" closes the step and gives the focus back to where it began.
      await page.getByRole('button', { name: 'Keep my account' }).click();
      await page.waitForFunction(() => document.activeElement?.textContent === 'Delete my account…');
      expect((await me(user.cookie)).status).toBe(200);
      expect(unexpected(errors, 502)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
