// The chat on the home page in real browsers: a message posted in one (Enter) appears live
// in another, so do likes; translation into the reader's language; entrance and system
// messages rendered from their keys in the reader's language.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { signSessionToken } from '@svc/service-kit';
import { eventually } from '@svc/service-kit/testing';
import { launchBrowser, openPage, type OpenedPage } from './browser.js';
import { startWebSystem, WEB_INTERNAL_TOKEN, type WebSystem } from './web-system.js';

let sys: WebSystem;
let browser: Browser;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startWebSystem(), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

async function openHome(o: OpenedPage, path = '/'): Promise<void> {
  await o.page.goto(path);
  await o.page.locator('.live-indicator.live-open').waitFor();
}

describe('the chat', () => {
  it('shows a message posted in one browser live in another, and likes with their count', async () => {
    const alice = await openPage(browser, sys, { clientIp: '192.0.2.21' });
    const bob = await openPage(browser, sys, { clientIp: '192.0.2.22' });
    await Promise.all([openHome(alice), openHome(bob)]);

    const box = alice.page.getByLabel('Your message');
    // maxlength counts UTF-16 units: twice the 200-character limit, room for 200 emoji.
    expect(await box.getAttribute('maxlength')).toBe('400');
    await box.fill('Hello from Alice');
    await box.press('Enter');
    // The sender's box empties; the other browser gets the message without a reload.
    await alice.page.waitForFunction(() => (document.getElementById('chat-input') as HTMLInputElement).value === '');
    const inBob = bob.page.getByRole('log').locator('li', { hasText: 'Hello from Alice' });
    await inBob.waitFor();
    expect(await alice.page.getByRole('log').locator('li', { hasText: 'Hello from Alice' }).count()).toBe(1);

    // Bob likes it: Alice sees the count.
    await inBob.getByRole('button', { name: /Like/ }).click();
    await inBob.locator('.like-count').getByText('1').waitFor();
    await alice.page.getByRole('log').locator('li', { hasText: 'Hello from Alice' }).locator('.like-count').getByText('1').waitFor();
    // A second like by the same visitor is refused in words, the count stays.
    await inBob.getByRole('button', { name: /Like/ }).click();
    await inBob.getByText('You already liked this message.').waitFor();
    expect(await inBob.locator('.like-count').innerText()).toBe('1');

    expect(alice.errors).toEqual([]);
    // The browser logs the expected 409 answer itself; nothing else may be there.
    expect(bob.errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
    expect(bob.errors.filter((e) => /status of 409/.test(e))).toHaveLength(1);
    await alice.context.close();
    await bob.context.close();
  });

  it('removes a message live when a moderator deletes it (message_deleted), and after a reload', async () => {
    const posted = await fetch(`${sys.baseUrl}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.41' },
      body: JSON.stringify({ content: 'Soon removed by a moderator' }),
    });
    expect(posted.status).toBe(201);
    const { message } = (await posted.json()) as { message: { id: string } };
    const reader = await openPage(browser, sys, { clientIp: '192.0.2.42' });
    await openHome(reader);
    const line = () => reader.page.locator(`li[data-message-id="${message.id}"]`);
    await line().waitFor();

    const { token } = signSessionToken(
      { id: 'web-moderator', email: 'mod@web.test', username: 'mod', isModerator: true },
      sys.system.keys.privateKey,
    );
    const deleted = await fetch(`${sys.baseUrl}/api/moderation/messages/${message.id}`, {
      method: 'DELETE',
      headers: { cookie: `sn_token=${token}`, 'x-forwarded-for': '192.0.2.43' },
    });
    expect(deleted.status).toBe(200);
    await line().waitFor({ state: 'detached' });
    await reader.page.reload();
    await reader.page.locator('.live-indicator.live-open').waitFor();
    expect(await line().count()).toBe(0);
    expect(reader.errors).toEqual([]);
    await reader.context.close();
  });

  it('keeps the like count over a reload (server-rendered from like_count, also without JavaScript)', async () => {
    const api = (path: string, ip: string, body?: unknown) =>
      fetch(`${sys.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const posted = await api('/api/messages', '192.0.2.31', { content: 'Count my likes' });
    expect(posted.status).toBe(201);
    const { message } = (await posted.json()) as { message: { id: string; like_count: number } };
    expect(message.like_count).toBe(0);
    // Someone else liked it before the reader came: the page opens with 1.
    expect((await api(`/api/messages/${message.id}/like`, '192.0.2.32')).status).toBe(200);

    const reader = await openPage(browser, sys, { clientIp: '192.0.2.33' });
    await openHome(reader);
    const line = () => reader.page.locator(`li[data-message-id="${message.id}"]`);
    expect(await line().locator('.like-count').innerText()).toBe('1');
    await line().getByRole('button', { name: /Like/ }).click();
    await line().locator('.like-count').getByText('2').waitFor();
    // A like from elsewhere arrives live with its total.
    expect((await api(`/api/messages/${message.id}/like`, '192.0.2.34')).status).toBe(200);
    await line().locator('.like-count').getByText('3').waitFor();

    // Reload: the count comes from the server, not from the page's memory.
    await reader.page.reload();
    await reader.page.locator('.live-indicator.live-open').waitFor();
    expect(await line().locator('.like-count').innerText()).toBe('3');
    // A repeated like is refused and does not count, before or after another reload.
    await line().getByRole('button', { name: /Like/ }).click();
    await line().getByText('You already liked this message.').waitFor();
    await reader.page.reload();
    expect(await line().locator('.like-count').innerText()).toBe('3');
    expect(reader.errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
    await reader.context.close();

    // The HTML itself carries the count (JavaScript off).
    const plain = await browser.newContext({
      baseURL: sys.baseUrl,
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': '192.0.2.35' },
    });
    const page = await plain.newPage();
    await page.goto('/');
    expect(await page.locator(`li[data-message-id="${message.id}"] .like-count`).innerText()).toBe('3');
    await plain.close();
  });

  it('translates a message into the reader’s language', async () => {
    const writer = await openPage(browser, sys, { clientIp: '192.0.2.23' });
    const reader = await openPage(browser, sys, { clientIp: '192.0.2.24', locale: 'fr-FR' });
    await Promise.all([openHome(writer), openHome(reader, '/?lang=fr')]);
    await writer.page.getByLabel('Your message').fill('Good morning everyone');
    await writer.page.getByLabel('Your message').press('Enter');
    const line = reader.page.getByRole('log').locator('li', { hasText: 'Good morning everyone' });
    await line.waitFor();
    await line.getByRole('button', { name: 'Traduire' }).click();
    await line.locator('.chat-translation').getByText('[French] Good morning everyone').waitFor();
    expect(await line.locator('.chat-translation').getAttribute('lang')).toBe('fr');
    expect(writer.errors).toEqual([]);
    expect(reader.errors).toEqual([]);
    await writer.context.close();
    await reader.context.close();
  });

  it('renders entrance and system messages in the reader’s language', async () => {
    const reader = await openPage(browser, sys, { clientIp: '192.0.2.25', locale: 'fr-FR' });
    await openHome(reader, '/?lang=fr');
    // A visitor from Newmarket (GB) comes in: an entrance message with the place in French.
    const visitor = await openPage(browser, sys, { clientIp: '81.2.69.142' });
    await openHome(visitor);
    const log = reader.page.getByRole('log');
    await log.getByText('Un visiteur de Newmarket, Royaume-Uni a rejoint le chat').waitFor();
    // The visitor, reading English, sees the same message in English.
    await visitor.page.reload();
    await visitor.page.getByRole('log').getByText('A visitor from Newmarket, United Kingdom joined the chat').waitFor();

    // A shared site posts a system message (through the queue), shown translated.
    const res = await fetch(`${sys.baseUrl}/api/sites`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.26' },
      body: JSON.stringify({ url: sys.website.url('/announced') }),
    });
    expect(res.status).toBe(201);
    await log.getByText('Un nouveau site a été partagé : 127.0.0.1').waitFor();
    // No translate action on system messages: they are already in the reader's language.
    expect(await log.locator('li.chat-system').first().getByRole('button', { name: 'Traduire' }).count()).toBe(0);
    expect(reader.errors).toEqual([]);
    expect(visitor.errors).toEqual([]);
    await reader.context.close();
    await visitor.context.close();
  });

  /** Posts a chat message through the gateway (from another address); its status. */
  const postMessage = async (content: string) =>
    (
      await fetch(`${sys.baseUrl}/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.28' },
        body: JSON.stringify({ content }),
      })
    ).status;

  /** Stops realtime (1012 to every socket), posts a message meanwhile, starts it again. */
  async function restartRealtimeMissing(content: string, reader: OpenedPage): Promise<void> {
    const indicator = reader.page.locator('.live-indicator');
    const old = sys.processes.realtime;
    await old.stop();
    await indicator.getByText('Reconnecting…').waitFor();
    // A message posted meanwhile reaches no socket…
    expect(await postMessage(content)).toBe(201);
    sys.processes.realtime = await sys.system.start(
      'services/realtime/dist/main.js',
      {
        REDIS_PREFIX: sys.system.redisPrefix,
        JWT_PUBLIC_KEY: sys.system.keys.publicKey,
        CHAT_URL: sys.processes.chat.url,
        INTERNAL_TOKEN: WEB_INTERNAL_TOKEN,
      },
      { port: old.port },
    );
    await reader.page.locator('.live-indicator.live-open').waitFor({ timeout: 45_000 });
  }

  /** The page's loader re-reads (React Router's `.data` requests) from now on. */
  function countRereads(reader: OpenedPage): () => number {
    let n = 0;
    reader.page.on('request', (r) => {
      if (/\.data(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search)) n += 1;
    });
    return () => n;
  }

  it('says when it is reconnecting and, once back, shows what was missed without re-reading (resumed)', async () => {
    const reader = await openPage(browser, sys, { clientIp: '192.0.2.27' });
    await openHome(reader);
    const indicator = reader.page.locator('.live-indicator');
    expect(await indicator.getAttribute('aria-live')).toBe('polite');
    expect(await indicator.innerText()).toContain('Live');
    // The page has seen an event, so its reconnection can resume after it.
    expect(await postMessage('Seen before the restart')).toBe(201);
    await reader.page.getByRole('log').getByText('Seen before the restart').waitFor();
    const rereads = countRereads(reader);
    await restartRealtimeMissing('Posted while you were away', reader);
    // …and is there once the page has reconnected: replayed by the resume, not re-read.
    await reader.page.getByRole('log').getByText('Posted while you were away').waitFor();
    expect(rereads()).toBe(0);
    // Only the failed connection attempts during the outage may have been logged.
    expect(reader.errors.filter((e) => !/WebSocket|Failed to load resource/.test(e))).toEqual([]);
    await reader.context.close();
  }, 90_000);

  it('re-reads after a reconnection it cannot resume (no event seen before the drop)', async () => {
    // The second page of an address that entered the chat a moment ago gets no entrance
    // message (once per 10 minutes), so it has seen no event when realtime goes away.
    const newest = async () => {
      const res = await fetch(`${sys.baseUrl}/api/messages?limit=1`, {
        headers: { 'x-forwarded-for': '192.0.2.30' },
      });
      return ((await res.json()) as { messages: Array<{ id: string; type: string }> }).messages[0];
    };
    const before = (await newest())?.id;
    const first = await openPage(browser, sys, { clientIp: '192.0.2.29' });
    await openHome(first);
    await eventually(
      async () => {
        const m = await newest();
        return m !== undefined && m.id !== before && m.type === 'entrance' ? true : undefined;
      },
      { what: "192.0.2.29's entrance message" },
    );
    await first.context.close();
    const reader = await openPage(browser, sys, { clientIp: '192.0.2.29' });
    await openHome(reader);
    const rereads = countRereads(reader);
    await restartRealtimeMissing('Posted while a quiet page was away', reader);
    await reader.page.getByRole('log').getByText('Posted while a quiet page was away').waitFor();
    expect(rereads()).toBeGreaterThan(0);
    expect(reader.errors.filter((e) => !/WebSocket|Failed to load resource/.test(e))).toEqual([]);
    await reader.context.close();
  }, 90_000);
});
