// The interactive API reference at /docs in a real browser: it renders /openapi.json offline
// under its own CSP (scripts by nonce only), shows the operations of both interfaces with
// their limits and errors, sends a try-it request to this origin, and nothing it loads or
// sends goes to another origin (Scalar's proxy, fonts, telemetry and AI features are off).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

// A real browser, a 5 MB bundle and axe on a large page: generous when the machine is busy.
jest.setTimeout(90_000);

let sys: WebSystem;
let browser: Browser;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

interface OpenApi {
  info: { title: string };
  paths: Record<string, Record<string, { operationId: string; summary: string; description: string; tags: string[]; responses: Record<string, unknown> }>>;
}

/** Scalar's section of one operation, scrolled to through its address (`#tag/<tag>/<METHOD><path>`). */
async function openOperation(page: Page, tag: string, method: string, path: string) {
  await page.evaluate((hash) => { window.location.hash = hash; }, `tag/${tag}/${method}${path}`);
  const section = page.locator(`[id$="tag/${tag}/${method}${path}"]`).first();
  await section.waitFor();
  return section;
}

interface Watched {
  page: Page;
  /** Every URL the page requested (documents, scripts, styles, images, fonts, fetches). */
  requests: string[];
  /** `securitypolicyviolation` events: the directive and the blocked URL. */
  violations: () => Promise<string[]>;
  /** Uncaught errors and console errors (Chromium logs refused resources there too). */
  errors: string[];
}

/** A page that records every request and every CSP violation from its first script on. */
async function watchedPage(clientIp: string): Promise<Watched> {
  const { page, errors } = await openPage(browser, sys, { clientIp });
  page.setDefaultTimeout(20_000);
  const requests: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  // Runs before any script of the document, outside its CSP (the browser's own channel).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const violations = () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  return { page, requests, violations, errors };
}

describe('/docs', () => {
  it('serves its own policy: scripts only by this response nonce, this origin for everything else', async () => {
    const res = await fetch(`${sys.baseUrl}/docs`, { headers: { 'x-forwarded-for': '203.0.113.60' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    const nonce = /'nonce-([^']+)'/.exec(directives.get('script-src')?.join(' ') ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(directives.get('script-src')).toEqual([`'nonce-${nonce}'`]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('font-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    // zod's setting, the bundle, the call that starts it.
    expect(scripts).toHaveLength(3);
    for (const attrs of scripts) expect(attrs).toContain(`nonce="${nonce}"`);
    // The bundle is this origin's, hashed and cached like the other assets.
    const src = /<script[^>]*\ssrc="([^"]+)"/.exec(html)?.[1];
    expect(src).toMatch(/^\/assets\/scalar-api-reference-[0-9a-f]{16}\.js$/);
    const bundle = await fetch(`${sys.baseUrl}${src}`, { headers: { 'accept-encoding': 'br' } });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toContain('immutable');
    await bundle.arrayBuffer();
    // A fresh nonce per response.
    const again = await fetch(`${sys.baseUrl}/docs`, { headers: { 'x-forwarded-for': '203.0.113.60' } });
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
    await again.arrayBuffer();
  });

  it('renders the operations of both interfaces with their limits and errors, tries one, and nothing leaves the origin or breaks the policy', async () => {
    const openapi = (await (await fetch(`${sys.baseUrl}/openapi.json`)).json()) as OpenApi;
    const { page, requests, violations, errors } = await watchedPage('203.0.113.61');
    const res = await page.goto('/docs');
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { name: openapi.info.title }).waitFor();

    // One operation of each interface, shown as the document describes it.
    for (const [method, path] of [['GET', '/api/v1/apps'], ['POST', '/api/sites']] as const) {
      const op = openapi.paths[path]![method.toLowerCase()]!;
      const section = await openOperation(page, op.tags[0]!, method, path);
      await section.getByText(op.operationId, { exact: true }).waitFor();
      const text = await section.innerText();
      expect(text).toContain(op.summary);
      // The auth mode and the rate limit, in words (Markdown rendered: no backticks).
      for (const paragraph of op.description.split('\n\n')) expect(text).toContain(paragraph.replaceAll('`', ''));
      for (const status of Object.keys(op.responses)) expect([status, text]).toEqual([status, expect.stringMatching(new RegExp(`\\b${status}\\b`))]);
    }
    expect(openapi.paths['/api/v1/apps']!.get!.responses).toHaveProperty('429');
    await expectAccessible(page);

    // The try-it console sends the request to this origin itself (no proxy) and shows the answer.
    const section = await openOperation(page, 'app-store', 'GET', '/api/v1/apps');
    await screenshot(page, 'docs');
    await section.getByRole('button', { name: /Test Request/ }).click();
    const answered = page.waitForResponse((r) => r.url().startsWith(`${sys.baseUrl}/api/v1/apps?`));
    await page.getByRole('button', { name: /^Send get request/ }).first().click();
    expect((await answered).status()).toBe(200);
    await page.getByText('200 OK').first().waitFor();

    const elsewhere = requests.filter((url) => new URL(url).origin !== sys.baseUrl);
    expect(elsewhere).toEqual([]);
    expect(requests).toContain(`${sys.baseUrl}/openapi.json`);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('is linked from the footer of the web client’s pages', async () => {
    const { page, errors } = await openPage(browser, sys, { clientIp: '203.0.113.62' });
    await page.goto('/apps');
    const link = page.getByRole('contentinfo').getByRole('link', { name: 'API reference' });
    expect(await link.getAttribute('href')).toBe('/docs');
    await link.click();
    await page.waitForURL(`${sys.baseUrl}/docs`);
    await page.getByRole('heading', { name: 'Svc platform API' }).waitFor();
    expect(errors).toEqual([]);
  });
});
