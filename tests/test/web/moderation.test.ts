// The moderation pages in a real browser: the author of an app five readers blocked sees why on
// the developer page and appeals with a plain form post (JavaScript off); the report queue
// shows the app with the appeal, its page the appeal beside the reports; a moderator restores
// it through its page (the API says approved again) and finds the entry in the audit log, and
// the author's page shows it published with the history (block, appeal, restore, actors as
// roles); blocking works as a plain form post without JavaScript, and the author appeals that
// block with JavaScript (the queue lists it for the appeal alone); a site is hidden
// and shown again, a chat sender muted, by id; a chat audit entry whose message retention
// removed says so. Readers who are not moderators get the HTML 403
// page and no header link; readers without a session go to the login page. The pages are
// checked by axe-core, and every browser's console must stay clean (CSP violations land there).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { apiLogin, expectAccessible, launchBrowser, openPage, screenshot } from './browser.js';
import { createPgPool } from '@svc/service-kit';
import { startWebSystem, type WebSystem } from './web-system.js';

// A real browser against the whole system: generous when the machine is busy.
jest.setTimeout(90_000);

const MODERATOR = 'mod@moderation.test';
const MOD_IP = '198.18.60.10';
const DEV_IP = '198.18.60.20';
const SLUG = 'brigaded-app';

let sys: WebSystem;
let browser: Browser;
let moderator: { cookie: string };
let member: { cookie: string };
let developer: { cookie: string };
const APPEAL = 'Five accounts made in one second reported my app. It is a puzzle game, not spam.';

/** A browser context without JavaScript, logged in with `cookie`: forms post the whole page. */
async function noScriptPage(cookie: string, ip: string) {
  const context = await browser.newContext({ baseURL: sys.baseUrl, javaScriptEnabled: false, extraHTTPHeaders: { 'x-forwarded-for': ip } });
  const eq = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page };
}

/** A form post as a browser without JavaScript sends it (the page's answer as HTML). */
function postForm(path: string, cookie: string, ip: string, fields: Record<string, string>) {
  return fetch(`${sys.baseUrl}${path}`, {
    method: 'POST',
    headers: { cookie, 'x-forwarded-for': ip, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

async function api<T = unknown>(path: string, init: { method?: string; cookie?: string; ip?: string; body?: unknown } = {}) {
  const res = await fetch(`${sys.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-forwarded-for': init.ip ?? MOD_IP,
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text.startsWith('{') ? JSON.parse(text) : text) as T };
}

async function appStatus(): Promise<string> {
  const { status, body } = await api<{ app: { status: string } }>(`/api/v1/moderation/apps/${SLUG}/reports`, { cookie: moderator.cookie });
  expect(status).toBe(200);
  return body.app.status;
}

beforeAll(async () => {
  [sys, browser] = await Promise.all([
    startWebSystem({ env: { auth: { MODERATOR_EMAILS: MODERATOR } } }),
    launchBrowser(),
  ]);
  moderator = await apiLogin(sys, MODERATOR, MOD_IP);
  member = await apiLogin(sys, 'member@moderation.test', '198.18.60.30');
  developer = await apiLogin(sys, 'dev@moderation.test', DEV_IP);
  const submitted = await api('/api/v1/apps', {
    method: 'POST',
    cookie: developer.cookie,
    ip: DEV_IP,
    body: {
      slug: SLUG,
      name: 'Brigaded App',
      url: 'https://brigaded.example/',
      description: 'Five accounts do not like it',
      category: 'games',
      app_type: 'web',
    },
  });
  expect(submitted.status).toBe(201);
  // Five distinct reporters (from five networks) block it automatically.
  for (let i = 1; i <= 5; i += 1) {
    const ip = `198.18.${70 + i}.10`;
    const reporter = await apiLogin(sys, `reporter-${i}@moderation.test`, ip);
    const reported = await api<{ blocked: boolean }>(`/api/v1/apps/${SLUG}/report`, {
      method: 'POST',
      cookie: reporter.cookie,
      ip,
      body: { reason: i <= 3 ? 'spam' : 'malware', detail: `Reporter ${i} says no` },
    });
    expect(reported.status).toBe(200);
    expect(reported.body.blocked).toBe(i === 5);
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

describe('the moderation pages', () => {
  it('shows the author why the app is blocked; the author appeals with a plain form post', async () => {
    const { context, page } = await noScriptPage(developer.cookie, DEV_IP);
    await page.goto('/developer');
    await page.getByText('You can appeal the block on the app\'s page.').waitFor();
    await page.getByRole('link', { name: 'Brigaded App' }).click();
    await page.getByRole('heading', { level: 1, name: 'Manage Brigaded App' }).waitFor();
    const panel = page.locator('[data-testid="block-panel"]');
    await panel.getByRole('heading', { name: 'Why this app is blocked' }).waitFor();
    const facts = await panel.locator('dd').allInnerTexts();
    expect(facts[0]).toMatch(/UTC$/);
    expect(facts[1]).toBe('Reports from the community (reporters are never named)');
    expect(facts[2]).toBe('5 reports: 3 spam, 2 malware');
    expect(await panel.innerText()).not.toContain('reporter-');
    // The counter is in the server's HTML (it counts as one types once scripts run).
    await panel.getByText('0 of 1000 characters').waitFor();
    // maxlength counts UTF-16 units: twice the 1000-character limit.
    expect(await page.getByLabel('Your appeal').getAttribute('maxlength')).toBe('2000');

    // The server checks a post that skipped the browser's checks: nothing is sent.
    const blank = await postForm(`/developer/apps/${SLUG}`, developer.cookie, DEV_IP, { intent: 'appeal', text: '  ' });
    expect(blank.status).toBe(200);
    // (The page's messages travel in its HTML as root data: look for the rendered element.)
    expect(await blank.text()).toMatch(/id="appeal-error"[^>]*>Please write your appeal\.</);
    const long = await postForm(`/developer/apps/${SLUG}`, developer.cookie, DEV_IP, { intent: 'appeal', text: 'x'.repeat(1001) });
    expect(await long.text()).toMatch(/id="appeal-error"[^>]*>Your appeal can have at most 1000 characters\.</);

    await page.getByLabel('Your appeal').fill(APPEAL);
    await Promise.all([page.waitForNavigation(), panel.getByRole('button', { name: 'Send appeal' }).click()]);
    const sent = page.locator('[data-testid="appeal-sent"]');
    await sent.getByText(/^Appeal sent: .+ UTC\. A moderator will review it\.$/).waitFor();
    expect(await sent.locator('blockquote').innerText()).toBe(APPEAL);
    expect(await page.getByLabel('Your appeal').count()).toBe(0);
    // Once per block: a second post is refused in words.
    const again = await postForm(`/developer/apps/${SLUG}`, developer.cookie, DEV_IP, { intent: 'appeal', text: 'Please look again' });
    const refused = await again.text();
    expect(refused).toMatch(/data-testid="appeal-failure"[^>]*>You already appealed this block: one appeal per block\.</);
    expect(refused).toContain('data-testid="appeal-sent"');
    await page.goto('/developer');
    await page.getByText('Your appeal was sent and awaits a moderator\'s review.').waitFor();
    await context.close();
  });

  it('shows the blocked app in the queue; the moderator restores it and finds the audit entry', async () => {
    expect(await appStatus()).toBe('blocked');
    const { page, errors, context } = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP });
    page.setDefaultTimeout(20_000);
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Moderation' }).click();
    await page.waitForURL('**/moderation');
    await page.getByRole('heading', { level: 1, name: 'Report queue' }).waitFor();

    const row = page.locator(`[data-testid="report-queue"] tr[data-slug="${SLUG}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[0]).toContain('Brigaded App');
    expect(cells[0]).toContain(SLUG);
    expect(cells[1]).toBe('Blocked');
    expect(cells[2]).toBe('5');
    expect(cells[3]).toContain('Spam ×3');
    expect(cells[3]).toContain('Malware ×2');
    expect(cells[4]).toMatch(/UTC$/);
    expect(cells[5]).toContain('Appealed');
    expect(cells[5]).toContain(APPEAL.slice(0, 40));
    expect(cells[5]).toMatch(/UTC/);
    await expectAccessible(page);
    await screenshot(page, 'moderation');

    // The app's reports: five open ones, by reason and detail, never by reporter.
    await row.getByRole('link', { name: 'Brigaded App' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reports about Brigaded App' }).waitFor();
    const history = page.locator('[data-testid="report-history"] tbody tr');
    expect(await history.count()).toBe(5);
    expect(await page.locator('[data-testid="report-history"]').innerText()).toContain('Reporter 1 says no');
    await page.getByText('Open reports: 5').waitFor();
    // The author's appeal beside the reports, open while the app stays blocked.
    const appeals = page.locator('[data-testid="appeal-history"] li');
    expect(await appeals.count()).toBe(1);
    expect(await appeals.first().innerText()).toContain('Open appeal');
    expect(await appeals.first().locator('blockquote').innerText()).toBe(APPEAL);
    await page.getByText('The author appealed this block.', { exact: false }).waitFor();
    // A blocked app can be restored (not blocked again) or its reports dismissed.
    expect(await page.getByRole('button', { name: 'Block' }).count()).toBe(0);
    await expectAccessible(page);

    const restore = page.getByRole('form', { name: 'Restore the app' });
    await restore.getByLabel('Reason', { exact: true }).fill('Brigading by five fresh accounts');
    await restore.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored: the app is published again. Reports resolved: 5.').waitFor();
    // The page revalidated in place: approved now, blocking offered, reports resolved.
    await page.locator('.app-status-line .status-badge', { hasText: 'Published' }).waitFor();
    await page.getByRole('button', { name: 'Block' }).waitFor();
    await page.getByText('Open reports: 0').waitFor();
    // The restore closed the appeal.
    await page.locator('[data-testid="appeal-history"] li', { hasText: 'Closed appeal' }).waitFor();
    expect(await appStatus()).toBe('approved');
    expect((await api(`/api/v1/apps/${SLUG}`, { ip: '198.18.60.99' })).status).toBe(200);

    // The audit log: the automatic block by `system`, then the moderator's restore on top.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const entries = page.locator('[data-testid="audit-log"] tbody tr');
    await entries.first().waitFor();
    const newest = await entries.first().locator('td').allInnerTexts();
    expect(newest[2]).toBe('App restored');
    expect(newest[4]).toBe('Brigading by five fresh accounts');
    expect(newest[5]).toContain('blocked');
    expect(newest[6]).toContain('approved');
    const blocked = page.locator('[data-testid="audit-log"] tr[data-action="app.blocked"]');
    expect(await blocked.locator('td').nth(1).innerText()).toBe('automatic');
    await expectAccessible(page);
    // Filtering by the target (its link) keeps the app's two entries.
    await entries.first().locator('td').nth(3).getByRole('link').click();
    await page.waitForURL(/target_type=app&target_id=/);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-log"] tbody tr').length === 3);
    expect(await page.locator('[data-testid="audit-log"] tr[data-action="app.appealed"] td').nth(2).innerText()).toBe('Block appealed by the author');
    expect(errors).toEqual([]);
    await context.close();

    // The author's page: published again, no block, and the history with actors as roles.
    const author = await openPage(browser, sys, { cookie: developer.cookie, clientIp: DEV_IP });
    author.page.setDefaultTimeout(20_000);
    await author.page.goto(`/developer/apps/${SLUG}`);
    await author.page.getByRole('heading', { level: 1, name: 'Manage Brigaded App' }).waitFor();
    await author.page.getByRole('link', { name: 'View its public page' }).waitFor();
    expect(await author.page.locator('[data-testid="block-panel"]').count()).toBe(0);
    const rows = author.page.locator('[data-testid="author-audit"] tbody tr');
    const authorHistory = await Promise.all((await rows.all()).map((r) => r.locator('td').allInnerTexts()));
    expect(authorHistory.map((cells) => cells.slice(1))).toEqual([
      ['A moderator', 'Restored', 'Brigading by five fresh accounts'],
      ['You', 'Appealed', APPEAL],
      ['Automatic (reports)', 'Blocked', '5 reports: 3 spam, 2 malware'],
    ]);
    expect(await author.page.locator('[data-testid="author-audit"]').innerText()).not.toContain('mod@');
    await expectAccessible(author.page);
    expect(author.errors).toEqual([]);
    await author.context.close();
  });

  it('blocks an app with a plain form post when JavaScript is off', async () => {
    const context = await browser.newContext({ baseURL: sys.baseUrl, javaScriptEnabled: false, extraHTTPHeaders: { 'x-forwarded-for': MOD_IP } });
    const eq = moderator.cookie.indexOf('=');
    await context.addCookies([{ name: moderator.cookie.slice(0, eq), value: moderator.cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    // The server checks a post too (one that skipped the browser's checks): nothing is sent.
    const blank = await fetch(`${sys.baseUrl}/moderation/apps/${SLUG}`, {
      method: 'POST',
      headers: { cookie: moderator.cookie, 'x-forwarded-for': MOD_IP, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'block', reason: '   ' }).toString(),
      redirect: 'manual',
    });
    expect(blank.status).toBe(200);
    expect(blank.headers.get('content-security-policy')).toMatch(/script-src[^;]*'nonce-/);
    expect(await blank.text()).toMatch(/id="block-reason-error"[^>]*>Please fill this in\.</);
    expect(await appStatus()).toBe('approved');

    await page.goto(`/moderation/apps/${SLUG}`);
    const block = page.getByRole('form', { name: 'Block the app' });
    await block.getByLabel('Reason', { exact: true }).fill('Malware confirmed by hand');
    await Promise.all([page.waitForNavigation(), block.getByRole('button', { name: 'Block' }).click()]);
    await page.getByText('Blocked: the app is no longer in the store.').waitFor();
    await page.locator('.app-status-line .status-badge', { hasText: 'Blocked' }).waitFor();
    expect(await appStatus()).toBe('blocked');
    const audit = await api<{ entries: { action: string; actor: string; reason: string }[] }>('/api/v1/moderation/audit?limit=1', {
      cookie: moderator.cookie,
    });
    expect(audit.body.entries[0]).toMatchObject({ action: 'app.blocked', reason: 'Malware confirmed by hand' });
    expect(audit.body.entries[0]!.actor).not.toBe('system');
    await context.close();
  });

  it('lets the author appeal a block by hand with JavaScript; the queue lists it for the appeal alone', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: developer.cookie, clientIp: DEV_IP });
    page.setDefaultTimeout(20_000);
    await page.goto(`/developer/apps/${SLUG}`);
    const panel = page.locator('[data-testid="block-panel"]');
    const facts = await panel.locator('dd').allInnerTexts();
    expect(facts.slice(1)).toEqual(['A moderator', 'Malware confirmed by hand']);
    await expectAccessible(page);
    const text = 'I removed the script that looked like malware.';
    await page.getByLabel('Your appeal').pressSequentially(text);
    await panel.getByText(`${text.length} of 1000 characters`).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'developer-blocked');
    await panel.getByRole('button', { name: 'Send appeal' }).click();
    // The fetcher posts and the page revalidates in place: the form gives way to the appeal.
    await page.locator('[data-testid="appeal-sent"] blockquote', { hasText: text }).waitFor();
    expect(page.url()).toMatch(new RegExp(`/developer/apps/${SLUG}$`));
    await expectAccessible(page);
    expect(errors).toEqual([]);
    await context.close();

    // No open report (the restore resolved them) but an open appeal: listed, without a latest report.
    const mod = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP });
    mod.page.setDefaultTimeout(20_000);
    await mod.page.goto('/moderation');
    const row = mod.page.locator(`[data-testid="report-queue"] tr[data-slug="${SLUG}"]`);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[2]).toBe('0');
    expect(cells[4]).toBe('No open reports');
    expect(cells[5]).toContain(text);
    await row.getByRole('link', { name: 'Brigaded App' }).click();
    const appeals = mod.page.locator('[data-testid="appeal-history"] li');
    await appeals.first().waitFor();
    expect(await appeals.count()).toBe(2);
    expect(await appeals.first().innerText()).toContain('Open appeal');
    expect(await appeals.nth(1).innerText()).toContain('Closed appeal');
    expect(mod.errors).toEqual([]);
    await mod.context.close();
  });

  it('hides a site and shows it again, and mutes a chat sender, by id', async () => {
    const site = await api<{ site: { id: string } }>('/api/sites', { method: 'POST', ip: '198.18.61.10', body: { url: sys.website.url('/to-hide') } });
    expect(site.status).toBe(201);
    const siteId = site.body.site.id;
    const posted = await api<{ message: { id: string } }>('/api/messages', { method: 'POST', ip: '198.18.61.11', body: { content: 'Buy cheap pills' } });
    expect(posted.status).toBe(201);
    const messageId = posted.body.message.id;

    const { page, errors, context } = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP });
    page.setDefaultTimeout(20_000);
    await page.goto('/moderation/tools');
    const hide = page.getByRole('form', { name: 'Hide a site' });
    await hide.getByLabel('Site id').fill(siteId);
    await hide.getByLabel('Reason').fill('Phishing page');
    await hide.getByRole('button', { name: 'Hide site' }).click();
    await hide.getByText(`The site ${siteId} is hidden.`).waitFor();
    expect((await api(`/api/sites/${siteId}`, { ip: '198.18.61.12' })).status).toBe(404);
    // Hiding it twice is refused in words.
    await hide.getByRole('button', { name: 'Hide site' }).click();
    await hide.getByText('This site is already hidden.').waitFor();

    const show = page.getByRole('form', { name: 'Show a hidden site again' });
    await show.getByLabel('Site id').fill(siteId);
    await show.getByRole('button', { name: 'Show site' }).click();
    await show.getByText(`The site ${siteId} is visible again.`).waitFor();
    expect((await api(`/api/sites/${siteId}`, { ip: '198.18.61.12' })).status).toBe(200);

    const mute = page.getByRole('form', { name: 'Mute the sender of a message' });
    await mute.getByLabel('Message id').fill(messageId);
    await mute.getByLabel('Minutes').fill('30');
    await mute.getByRole('button', { name: 'Mute sender' }).click();
    await mute.getByText(new RegExp(`The visitor who wrote message ${messageId} is muted until .+ UTC\\.`)).waitFor();
    const again = await api('/api/messages', { method: 'POST', ip: '198.18.61.11', body: { content: 'Still here?' } });
    expect(again.status).toBe(403);
    await expectAccessible(page);

    // Both actions are in the sites' audit log, chosen as the page's source; the mute in the chat's.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.getByLabel('Log', { exact: true }).selectOption({ label: 'Sites' });
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/source=sites/);
    const siteRows = page.locator('[data-testid="audit-log"] tbody tr');
    await page.locator('[data-testid="audit-log"] tr[data-action="site.hidden"]').waitFor();
    const sites = await Promise.all((await siteRows.all()).map((r) => r.locator('td').allInnerTexts()));
    expect(sites.map((cells) => [cells[2], cells[3], cells[4]])).toEqual([
      ['Site shown again', `Site ${siteId}`, ''],
      ['Site hidden', `Site ${siteId}`, 'Phishing page'],
    ]);
    await expectAccessible(page);
    await page.goto('/moderation/audit?source=chat&target_type=sender');
    const muted = page.locator('[data-testid="audit-log"] tr[data-action="sender.muted"]');
    await muted.waitFor();
    expect(await muted.locator('td').nth(2).innerText()).toBe('Sender muted');
    expect(await muted.locator('td').nth(3).innerText()).toMatch(/^Sender ip:/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('marks a chat audit entry whose message retention removed', async () => {
    const ids: string[] = [];
    for (const content of ['Old news', 'Still here']) {
      const posted = await api<{ message: { id: string } }>('/api/messages', { method: 'POST', ip: '198.18.62.11', body: { content } });
      expect(posted.status).toBe(201);
      ids.push(posted.body.message.id);
      expect((await api(`/api/moderation/messages/${posted.body.message.id}`, { method: 'DELETE', cookie: moderator.cookie })).status).toBe(200);
    }
    const [gone, kept] = ids as [string, string];
    // What chat's retention sweep does once a message is older than CHAT_RETENTION_DAYS.
    const pool = createPgPool(sys.chatDatabase.target, 1);
    try {
      expect((await pool.query('DELETE FROM messages WHERE id = $1', [gone])).rowCount).toBe(1);
    } finally {
      await pool.end();
    }

    const { page, errors, context } = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP });
    page.setDefaultTimeout(20_000);
    await page.goto('/moderation/audit?source=chat&target_type=message');
    const rowOf = (id: string) => page.locator('[data-testid="audit-log"] tbody tr', { has: page.locator('code', { hasText: id }) });
    await rowOf(gone).waitFor();
    // The entry stays, its target marked; the entry of a message still there is not.
    expect(await rowOf(gone).locator('td').nth(2).innerText()).toBe('Message deleted');
    expect(await rowOf(gone).locator('[data-testid="target-removed"]').innerText()).toBe('Removed by retention');
    expect(await rowOf(kept).locator('[data-testid="target-removed"]').count()).toBe(0);
    await expectAccessible(page);
    expect(errors).toEqual([]);
    await context.close();

    // In the reader's language.
    const de = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP, locale: 'de-DE' });
    await de.page.goto(`/moderation/audit?source=chat&target_type=message&target_id=${gone}`);
    await de.page.locator('[data-testid="target-removed"]').getByText('Nach Ablauf der Aufbewahrungsfrist gelöscht').waitFor();
    expect(de.errors).toEqual([]);
    await de.context.close();
  });

  it('is the 403 page for other users, without a header link, and the login page without a session', async () => {
    for (const path of ['/moderation', `/moderation/apps/${SLUG}`, '/moderation/audit', '/moderation/tools']) {
      const res = await api(path, { cookie: member.cookie, ip: '198.18.60.30' });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const anonymous = await api(path, { ip: '198.18.60.31' });
      expect({ path, status: anonymous.status }).toEqual({ path, status: 302 });
      expect(anonymous.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    // A form post by a non-moderator changes nothing.
    const posted = await fetch(`${sys.baseUrl}/moderation/apps/${SLUG}`, {
      method: 'POST',
      headers: { cookie: member.cookie, 'x-forwarded-for': '198.18.60.30', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ intent: 'restore', reason: 'let me in' }).toString(),
      redirect: 'manual',
    });
    expect(posted.status).toBe(403);
    expect(await appStatus()).toBe('blocked');

    const { page, errors, context } = await openPage(browser, sys, { cookie: member.cookie, clientIp: '198.18.60.30' });
    const res = await page.goto('/moderation');
    expect(res?.status()).toBe(403);
    await page.getByRole('heading', { level: 1, name: 'Not allowed' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Moderation' }).count()).toBe(0);
    await expectAccessible(page);
    expect(errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    await context.close();
  });

  it('speaks the reader’s language', async () => {
    const { page, errors, context } = await openPage(browser, sys, { cookie: moderator.cookie, clientIp: MOD_IP, locale: 'de-DE' });
    await page.goto('/moderation/audit');
    await page.getByRole('heading', { level: 1, name: 'Prüfprotokoll' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(errors).toEqual([]);
    await context.close();
    // The author's side in a right-to-left language: the block, the appeal sent, the history.
    const author = await openPage(browser, sys, { cookie: developer.cookie, clientIp: DEV_IP, locale: 'ar' });
    await author.page.goto(`/developer/apps/${SLUG}`);
    await author.page.getByRole('heading', { level: 2, name: 'لماذا حُظر هذا التطبيق' }).waitFor();
    expect(await author.page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await author.page.locator('[data-testid="block-panel"] dd').nth(1).innerText()).toBe('مشرف');
    await author.page.locator('[data-testid="author-audit"] tbody tr').first().getByText('طُعن فيه').waitFor();
    await expectAccessible(author.page);
    expect(author.errors).toEqual([]);
    await author.context.close();
  });
});
