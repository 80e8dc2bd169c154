// A real browser for the web client's tests: Debian's Chromium driven by playwright-core
// (the test command installs the chromium package when it is missing, see scripts/lib.mjs).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { codeFor, type LoggedIn } from '../login.js';
import { ROOT } from '../system-processes.js';
import type { WebSystem } from './web-system.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and quiet: this machine has no network beyond loopback (see env notes). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export interface OpenOptions {
  /** The browser's language (Accept-Language and navigator.language). */
  locale?: string;
  /** A session cookie (`sn_token=…`) to start logged in. */
  cookie?: string;
  /** A client address the gateway is told (X-Forwarded-For), so per-IP limits stay apart. */
  clientIp?: string;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors (CSP violations land here) seen so far. */
  errors: string[];
}

export async function openPage(browser: Browser, sys: WebSystem, options: OpenOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext({
    baseURL: sys.baseUrl,
    locale: options.locale ?? 'en-US',
    extraHTTPHeaders: options.clientIp ? { 'x-forwarded-for': options.clientIp } : undefined,
  });
  if (options.cookie) {
    const eq = options.cookie.indexOf('=');
    await context.addCookies([
      { name: options.cookie.slice(0, eq), value: options.cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' },
    ]);
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return { context, page, errors };
}

/** Logs `email` in through the API (send-code, the code from the fake Resend, verify). */
export async function apiLogin(sys: WebSystem, email: string, clientIp = '198.51.100.10'): Promise<LoggedIn> {
  const post = (p: string, body: unknown) =>
    fetch(`${sys.baseUrl}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp },
      body: JSON.stringify(body),
    });
  const sent = await post('/api/auth/send-code', { email });
  expect(sent.status).toBe(200);
  const verified = await post('/api/auth/verify', { email, code: await codeFor(sys.resend, email) });
  expect(verified.status).toBe(200);
  const body = (await verified.json()) as { user: { username: string } };
  return { cookie: verified.headers.get('set-cookie')!.split(';')[0]!, username: body.user.username, email };
}

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  expect(bad).toEqual([]);
}

/** The README's screenshots: services/web/screenshots/<name>.png (1280×800). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'services/web/screenshots');
  mkdirSync(dir, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
