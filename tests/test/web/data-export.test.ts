// "Download my data" on /me in a real browser, through the gateway to auth and every
// service: a plain link with `download`, which saves the export under the API's file name,
// with JavaScript and without it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { ExportResponse } from '@svc/types';
import type { LoggedIn } from '../login.js';
import { apiLogin, expectAccessible, launchBrowser, openPage } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

let sys: WebSystem;
let browser: Browser;
let ann: LoggedIn;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
  ann = await apiLogin(sys, 'ann.export@example.com', '198.51.100.70');
  const posted = await fetch(`${sys.baseUrl}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: ann.cookie, 'x-forwarded-for': '198.51.100.70' },
    body: JSON.stringify({ content: 'hello from the export test' }),
  });
  expect(posted.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

const FILE_NAME = /^svc-export-\d{4}-\d{2}-\d{2}\.json$/;

/** Clicks the link and reads the file the browser saved. */
async function download(page: Page): Promise<{ file: Download; exported: ExportResponse }> {
  const link = page.getByRole('link', { name: 'Download my data' });
  const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const saved = await file.path();
  return { file, exported: ExportResponse.parse(JSON.parse(readFileSync(saved, 'utf8'))) };
}

describe('Download my data on /me', () => {
  it('is a link with download to the export; the browser saves the whole document under its name', async () => {
    const { page, context, errors } = await openPage(browser, sys, { cookie: ann.cookie, clientIp: '198.51.100.71' });
    try {
      await page.goto('/me');
      const section = page.getByRole('region', { name: 'Your data' });
      const link = section.getByRole('link', { name: 'Download my data' });
      expect(await link.getAttribute('href')).toBe('/api/auth/export');
      expect(await link.getAttribute('download')).toBe('');
      await expect(section.getByText('At most 3 downloads an hour.').isVisible()).resolves.toBe(true);
      await expectAccessible(page);

      const { file, exported } = await download(page);
      expect(file.suggestedFilename()).toMatch(FILE_NAME);
      expect(exported.user.email).toBe(ann.email);
      expect(exported.chat.messages.map((m) => m.content)).toEqual(['hello from the export test']);
      // The page stays where it was: a download, not a navigation.
      expect(new URL(page.url()).pathname).toBe('/me');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('works without JavaScript', async () => {
    let context: BrowserContext | undefined;
    try {
      context = await browser.newContext({
        baseURL: sys.baseUrl,
        locale: 'en-US',
        javaScriptEnabled: false,
        extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.72' },
      });
      const eq = ann.cookie.indexOf('=');
      await context.addCookies([
        { name: ann.cookie.slice(0, eq), value: ann.cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' },
      ]);
      const page = await context.newPage();
      await page.goto('/me');
      const { file, exported } = await download(page);
      expect(file.suggestedFilename()).toMatch(FILE_NAME);
      expect(exported.user.username).toBe(ann.username);
    } finally {
      await context?.close();
    }
  }, 60_000);
});
