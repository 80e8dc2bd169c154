// Pages survive what people type. The system is seeded through the API with the longest valid
// user text made of one unbroken word (app names, descriptions, tech tags, chain, slug, URL,
// site titles and descriptions, usernames, chat messages, report details, moderation reasons,
// appeals), right-to-left text mixed with Latin, and astral characters (𠮷, 𩸽, 👩‍👩‍👧‍👦). Every
// page that shows such text is opened at a phone's width (390×844) and a laptop's (1280×800):
// the page is never wider than the window, no element holding user text is wider than its
// box (but for the deliberate clamps named below), and user text carries dir="auto" so it
// keeps its own direction. The forms take the longest valid text of astral characters (the
// limits count code points; HTML's maxlength counts UTF-16 units).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '@svc/service-kit/testing';
import { SDK_VERSION_MAX_LENGTH } from '@svc/types';
import { apiLogin, launchBrowser } from './browser.js';
import { startWebSystem, type WebSystem } from './web-system.js';

// A real browser against the whole system, two widths per page: generous when the machine is busy.
jest.setTimeout(90_000);

/** `pieces` repeated without a space (one word) to exactly `n` code points. */
function word(pieces: string, n: number): string {
  const points = Array.from(pieces);
  return Array.from({ length: n }, (_, i) => points[i % points.length]).join('');
}

const ASTRAL = '𠮷𩸽👩‍👩‍👧‍👦';

// Usernames: 32 letters, the longest set-username takes.
const DEV_NAME = word('Wolfeschlegelsteinhausenbergerdorff', 32);
const DEV2_NAME = word('عبدالرحمنAbdulrahman', 32);
const MOD_NAME = word('שמואלShmuel', 32);

const LATIN_APP = {
  slug: word('longwordslug', 64),
  name: word('Supercalifragilisticexpialidocious', 80),
  description: `Starts with words, then ${word('Pneumonoultramicroscopicsilicovolcanoconiosis', 600)} and ends.`,
  url: `https://${word('subdomain', 60)}.example/${word('pathsegment', 1500)}`,
  category: 'defi',
  app_type: 'dapp',
  open_mode: 'iframe',
  chain: word('Ethereum', 64),
};
const LATIN_TAGS = Array.from({ length: 10 }, (_, i) => word(`tag${i}webassembly`, 32));
/** The longest version the contract takes (SDK_VERSION_MAX_LENGTH), one unbroken word. */
const LATIN_VERSION = `1.0.0-${word('prerelease', SDK_VERSION_MAX_LENGTH - 6)}`;
const RTL_APP = {
  slug: 'rtl-app',
  name: word('تطبيقApp', 80),
  description: `תיאור עם מילה ארוכה ${word('אבגדהוזחטיכלמנסעפצקרשת', 600)} and English words after it.`,
  url: 'https://rtl.example/',
  category: 'tools',
  app_type: 'web',
  open_mode: 'external',
};
const RTL_TAGS = [word('תגיתTag', 32), word('وسمTag', 32)];
const ASTRAL_APP = {
  slug: 'astral-app',
  name: word(ASTRAL, 80),
  description: word(`${ASTRAL} `, 2000),
  url: 'https://astral.example/',
  category: 'games',
  app_type: 'pwa',
  open_mode: 'iframe',
};
const BLOCKED_APP = {
  slug: 'blocked-app',
  name: word('Donaudampfschifffahrtsgesellschaftskapitän', 80),
  description: 'Its author appeals the block.',
  url: 'https://blocked.example/',
  category: 'tools',
  app_type: 'web',
};
const REPORT_DETAIL = word('Antidisestablishmentarianism', 500);
const BLOCK_REASON = word('Rechtsschutzversicherungsgesellschaften', 1000);
const APPEAL = word('ערעורAppeal', 1000);

// Sites: what the fake website's pages say (titles are cut at 200 characters, descriptions at 1000).
const LATIN_SITE = {
  path: '/long-title',
  title: word('Honorificabilitudinitatibus', 200),
  description: `Words first, ${word('Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch', 600)} then more words.`,
};
const RTL_SITE = {
  path: '/rtl-title',
  title: `موقع ${word('مرحبابالعالم', 150)} Site`,
  description: `תיאור ${word('שלוםעולם', 600)} end`,
};
const ASTRAL_SITE = { path: '/astral-title', title: word(ASTRAL, 200), description: word(`${ASTRAL}x`, 1000) };
const HIDDEN_SITE = { path: '/hidden-site', title: 'A site a moderator hides', description: 'Hidden.' };
const HIDE_REASON = word('Urheberrechtsverletzung', 500);

const CHAT_LATIN = word('Chargoggagoggmanchauggagoggchaubunagungamaugg', 200);
const CHAT_RTL = word('مرحباHello', 200);
const MUTE_REASON = word('Beleidigungsverfahren', 500);
const SEARCH = word('Searchterm', 200);
const QUERY = word('Queryword', 200);

/** Every seeded string: a text node or a field holding one must carry dir="auto". */
const USER_TEXTS = [
  DEV_NAME, DEV2_NAME, MOD_NAME,
  ...[LATIN_APP, RTL_APP, ASTRAL_APP, BLOCKED_APP].flatMap((a) => [a.name, a.description, a.slug]),
  LATIN_APP.url, LATIN_APP.chain, LATIN_VERSION, ...LATIN_TAGS, ...RTL_TAGS,
  REPORT_DETAIL, BLOCK_REASON, APPEAL,
  ...[LATIN_SITE, RTL_SITE, ASTRAL_SITE].flatMap((s) => [s.title, s.description]),
  HIDE_REASON, CHAT_LATIN, CHAT_RTL, MUTE_REASON, SEARCH, QUERY,
];
/** What finds a string on a page: its first 16 characters (pages may cut the rest). */
const needle = (text: string) => Array.from(text).slice(0, 16).join('');

/**
 * Deliberate clamps: user text cut on purpose, so wider than its box. A clamp no page shows
 * fails the last test (the exemption would be stale).
 */
const CLAMPS: Record<string, string> = {
  '.desktop-window-bar h2': 'a window’s title bar: one line, cut with an ellipsis',
};

const DEV_IP = '198.18.90.10';
const DEV2_IP = '198.18.90.20';
const MOD_IP = '198.18.90.30';
const MODERATOR = 'mod@layout.test';

let sys: WebSystem;
let browser: Browser;
const cookies: Record<'dev' | 'dev2' | 'moderator', string> = { dev: '', dev2: '', moderator: '' };
const siteIds: Record<string, string> = {};
const clampsSeen = new Set<string>();

async function api<T>(path: string, init: { method?: string; cookie?: string; ip: string; body?: unknown }): Promise<{ status: number; body: T; res: Response }> {
  const res = await fetch(`${sys.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-forwarded-for': init.ip,
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as T, res };
}

/** Expects `status`, naming the request and the answer when it differs. */
async function must<T>(status: number, what: string, call: Promise<{ status: number; body: T }>): Promise<T> {
  const answer = await call;
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body;
}

/** Logs in and sets a username; the session cookie set-username answers with (the old one is retired). */
async function userNamed(email: string, username: string, ip: string): Promise<string> {
  const { cookie } = await apiLogin(sys, email, ip);
  const set = await api('/api/auth/set-username', { method: 'POST', cookie, ip, body: { username } });
  if (set.status !== 200) throw new Error(`set-username ${username}: ${set.status} ${JSON.stringify(set.body)}`);
  return set.res.headers.get('set-cookie')!.split(';')[0]!;
}

async function submitSite(site: { path: string; title: string; description: string }, cookie: string): Promise<string> {
  sys.website.page(site.path, { title: site.title, description: site.description });
  const { site: created } = await must<{ site: { id: string } }>(201, `submit ${site.path}`,
    api('/api/sites', { method: 'POST', cookie, ip: DEV_IP, body: { url: sys.website.url(site.path) } }));
  return created.id;
}

beforeAll(async () => {
  [sys, browser] = await Promise.all([
    startWebSystem({ env: { auth: { MODERATOR_EMAILS: MODERATOR } } }),
    launchBrowser(),
  ]);
  // Names first: an app keeps its author's name from the time it was submitted.
  cookies.dev = await userNamed('dev@layout.test', DEV_NAME, DEV_IP);
  cookies.dev2 = await userNamed('dev2@layout.test', DEV2_NAME, DEV2_IP);
  cookies.moderator = await userNamed(MODERATOR, MOD_NAME, MOD_IP);
  const { dev, dev2, moderator } = cookies;

  for (const [app, cookie, ip] of [[LATIN_APP, dev, DEV_IP], [ASTRAL_APP, dev, DEV_IP], [RTL_APP, dev2, DEV2_IP], [BLOCKED_APP, dev2, DEV2_IP]] as const) {
    await must(201, `submit ${app.slug}`, api('/api/v1/apps', { method: 'POST', cookie, ip, body: app }));
  }
  await must(200, 'tags of the Latin app', api(`/api/v1/apps/${LATIN_APP.slug}`, {
    method: 'PATCH', cookie: dev, ip: DEV_IP, body: { tech_tags: LATIN_TAGS, svc_sdk_version: LATIN_VERSION },
  }));
  await must(200, 'tags of the RTL app', api(`/api/v1/apps/${RTL_APP.slug}`, { method: 'PATCH', cookie: dev2, ip: DEV2_IP, body: { tech_tags: RTL_TAGS } }));
  for (const slug of [LATIN_APP.slug, ASTRAL_APP.slug, RTL_APP.slug]) {
    await must(200, `install ${slug}`, api(`/api/v1/me/installed/${slug}`, { method: 'PUT', cookie: dev, ip: DEV_IP }));
  }
  // The blocked app: a report with a long detail, a moderator's block with a long reason, the
  // author's long appeal.
  const reporter = await apiLogin(sys, 'reporter@layout.test', '198.18.90.40');
  await must(200, 'report', api(`/api/v1/apps/${BLOCKED_APP.slug}/report`, {
    method: 'POST', cookie: reporter.cookie, ip: '198.18.90.40', body: { reason: 'spam', detail: REPORT_DETAIL },
  }));
  await must(200, 'block', api(`/api/v1/moderation/apps/${BLOCKED_APP.slug}/block`, { method: 'POST', cookie: moderator, ip: MOD_IP, body: { reason: BLOCK_REASON } }));
  await must(201, 'appeal', api(`/api/v1/me/apps/${BLOCKED_APP.slug}/appeal`, { method: 'POST', cookie: dev2, ip: DEV2_IP, body: { text: APPEAL } }));

  // Sites, scraped by the worker from the fake website; bookmarked by the developer.
  for (const site of [LATIN_SITE, RTL_SITE, ASTRAL_SITE, HIDDEN_SITE]) siteIds[site.path] = await submitSite(site, dev);
  for (const site of [LATIN_SITE, RTL_SITE, ASTRAL_SITE, HIDDEN_SITE]) {
    await eventually(async () => {
      const { body } = await api<{ site?: { title: string } }>(`/api/sites/${siteIds[site.path]}`, { ip: DEV_IP });
      return body.site?.title === site.title ? true : undefined;
    }, { ms: 60_000, everyMs: 200, what: `the scrape of ${site.path}` });
  }
  for (const path of [LATIN_SITE.path, RTL_SITE.path]) {
    await must(201, `bookmark ${path}`, api('/api/bookmarks', { method: 'POST', cookie: dev, ip: DEV_IP, body: { site_id: siteIds[path] } }));
  }
  await must(200, 'hide', api(`/api/moderation/sites/${siteIds[HIDDEN_SITE.path]}/hide`, { method: 'POST', cookie: moderator, ip: MOD_IP, body: { reason: HIDE_REASON } }));

  // Chat: the developer's two long messages; the other developer's message gets them muted.
  for (const content of [CHAT_LATIN, CHAT_RTL]) {
    await must(201, 'chat', api('/api/messages', { method: 'POST', cookie: dev, ip: DEV_IP, body: { content } }));
  }
  const { message } = await must<{ message: { id: string } }>(201, 'chat', api('/api/messages', { method: 'POST', cookie: dev2, ip: DEV2_IP, body: { content: 'Soon muted' } }));
  await must(200, 'mute', api('/api/moderation/chat/mutes', { method: 'POST', cookie: moderator, ip: MOD_IP, body: { sender: message.id, minutes: 60, reason: MUTE_REASON } }));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
}, 60_000);

type Who = 'anonymous' | keyof typeof cookies;

const contexts = new Map<Who, BrowserContext>();
/** One browser context per reader (logged in with their cookie), made on first use. */
async function pageAs(who: Who): Promise<Page> {
  let context = contexts.get(who);
  if (!context) {
    const ip = { anonymous: '198.18.91.10', dev: DEV_IP, dev2: DEV2_IP, moderator: MOD_IP }[who];
    context = await browser.newContext({ baseURL: sys.baseUrl, locale: 'en-US', extraHTTPHeaders: { 'x-forwarded-for': ip } });
    if (who !== 'anonymous') {
      const cookie = cookies[who];
      const eq = cookie.indexOf('=');
      await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: sys.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    }
    contexts.set(who, context);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  return page;
}

/** Resolves once React has hydrated the page (its DOM nodes carry React's fiber keys). */
const hydrated = (page: Page) =>
  page.waitForFunction(() => {
    const main = document.querySelector('main');
    return !!main && Object.keys(main).some((k) => k.startsWith('__reactFiber'));
  });

interface Findings {
  problems: string[];
  found: string[];
  clamps: string[];
}

/**
 * Runs in the page: what is wider than it should be, and which user text lacks dir="auto".
 * Closed parts of the page (menus, the report dialog) are opened first so their text counts.
 */
function inspect({ needles, clamps }: { needles: string[]; clamps: string[] }): Findings {
  const problems: string[] = [];
  const found = new Set<string>();
  const clampsSeen = new Set<string>();
  const name = (el: Element): string => {
    const classes = typeof el.className === 'string' && el.className.trim() !== '' ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const text = Array.from((el.textContent ?? '').trim()).slice(0, 24).join('');
    return `<${el.tagName.toLowerCase()}${classes}> “${text}…”`;
  };
  const px = (n: number) => `${Math.round(n)} px`;

  // The page as a whole: no horizontal scrolling; name the innermost elements reaching past
  // the window (an element whose text runs out of it counts too).
  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > innerWidth) {
    const past = new Set([...document.body.querySelectorAll('*')].filter((el) => el.checkVisibility() && el.getBoundingClientRect().right > innerWidth + 1));
    const range = document.createRange();
    const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      range.selectNodeContents(node);
      if (node.parentElement?.checkVisibility() && range.getBoundingClientRect().right > innerWidth + 1) past.add(node.parentElement);
    }
    const innermost = [...past].filter((el) => ![...el.children].some((c) => past.has(c))).slice(0, 3);
    problems.push(`the page is ${px(pageWidth)} wide in a ${px(innerWidth)} window (${px(pageWidth - innerWidth)} of horizontal scrolling); reaching past the window: ${innermost.map(name).join(', ')}`);
  }

  // Every element holding user text: not wider than its own box, inside the box it sits in,
  // and no wider than the window or the scrolling box around it.
  const notInline = (el: Element) => !['inline', 'contents'].includes(getComputedStyle(el).display);
  for (const el of document.body.querySelectorAll('[dir="auto"]')) {
    // Fields scroll their text; visually hidden text is not shown.
    if (el.matches('input, textarea, select') || el.closest('.visually-hidden') || !el.checkVisibility()) continue;
    const rects = [...el.getClientRects()].filter((r) => r.width > 0);
    if (rects.length === 0) continue;
    const clamp = clamps.find((selector) => el.matches(selector));
    if (clamp) {
      clampsSeen.add(clamp);
      continue;
    }
    if (notInline(el) && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name(el)} is ${px(el.scrollWidth - el.clientWidth)} wider than its own box (${px(el.scrollWidth)} in ${px(el.clientWidth)})`);
    }
    let box = el.parentElement;
    while (box && !notInline(box)) box = box.parentElement;
    let scroller = el.parentElement;
    while (scroller && scroller !== document.body && getComputedStyle(scroller).overflowX === 'visible') scroller = scroller.parentElement;
    const scrolling = scroller && scroller !== document.body ? scroller : null;
    const boxRect = box?.getBoundingClientRect();
    for (const r of rects) {
      if (boxRect && (r.left < boxRect.left - 1 || r.right > boxRect.right + 1)) {
        problems.push(`${name(el)} sticks out of ${name(box!)} by ${px(Math.max(boxRect.left - r.left, r.right - boxRect.right))}`);
        break;
      }
      if (scrolling && r.width > scrolling.clientWidth + 1) {
        problems.push(`${name(el)} is ${px(r.width)} wide in a scrolling box ${px(scrolling.clientWidth)} wide (${name(scrolling)})`);
        break;
      }
      if (!scrolling && (r.left < -1 || r.right > innerWidth + 1)) {
        problems.push(`${name(el)} reaches ${px(Math.max(-r.left, r.right - innerWidth))} past the window`);
        break;
      }
    }
  }

  // User text keeps its own direction: the nearest dir attribute around it says "auto".
  const direction = (el: Element | null, what: string, text: string) => {
    for (const n of needles) {
      if (!text.includes(n)) continue;
      found.add(n);
      const dir = el?.closest('[dir]')?.getAttribute('dir');
      if (dir !== 'auto') problems.push(`“${n}…” in ${el ? name(el) : 'the page'} (${what}) has dir="${dir}", not dir="auto"`);
    }
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, noscript, template')) continue;
    direction(parent, 'text', (node as Text).data);
  }
  for (const field of document.body.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input:not([type="hidden"]), textarea')) {
    direction(field, 'a field', field.value);
  }
  return { problems, found: [...found], clamps: [...clampsSeen] };
}

interface PageSpec {
  /** How the test names the page. */
  name: string;
  who: Who;
  path: () => string;
  /** User text the page must show (else it could pass by showing nothing). */
  shows: () => string[];
}

const appTexts = (app: { name: string; description: string }) => [app.name, app.description];
const PAGES: PageSpec[] = [
  { name: 'home', who: 'anonymous', path: () => '/', shows: () => [LATIN_SITE.title, LATIN_SITE.description, RTL_SITE.title, ASTRAL_SITE.title, CHAT_LATIN, CHAT_RTL, DEV_NAME] },
  { name: 'home, logged in', who: 'dev', path: () => '/', shows: () => [LATIN_SITE.title, CHAT_LATIN, DEV_NAME] },
  { name: 'home, searched', who: 'anonymous', path: () => `/?search=${encodeURIComponent(SEARCH)}`, shows: () => [SEARCH] },
  { name: 'site (Latin)', who: 'anonymous', path: () => `/site/${siteIds[LATIN_SITE.path]}`, shows: () => [LATIN_SITE.title, LATIN_SITE.description] },
  { name: 'site (right to left)', who: 'dev', path: () => `/site/${siteIds[RTL_SITE.path]}`, shows: () => [RTL_SITE.title, RTL_SITE.description, DEV_NAME] },
  { name: 'site (astral)', who: 'anonymous', path: () => `/site/${siteIds[ASTRAL_SITE.path]}`, shows: () => [ASTRAL_SITE.title] },
  { name: 'apps', who: 'anonymous', path: () => '/apps', shows: () => [...appTexts(LATIN_APP), ...appTexts(RTL_APP), ...appTexts(ASTRAL_APP), DEV_NAME, DEV2_NAME] },
  { name: 'apps, searched', who: 'anonymous', path: () => `/apps?q=${encodeURIComponent(QUERY)}`, shows: () => [QUERY] },
  { name: 'app (Latin)', who: 'anonymous', path: () => `/apps/${LATIN_APP.slug}`, shows: () => [...appTexts(LATIN_APP), LATIN_APP.chain, LATIN_APP.url, LATIN_VERSION, ...LATIN_TAGS, DEV_NAME] },
  { name: 'app (right to left), with the report dialog', who: 'dev', path: () => `/apps/${RTL_APP.slug}`, shows: () => [...appTexts(RTL_APP), ...RTL_TAGS, DEV2_NAME, DEV_NAME] },
  { name: 'app (astral)', who: 'anonymous', path: () => `/apps/${ASTRAL_APP.slug}`, shows: () => appTexts(ASTRAL_APP) },
  { name: 'desktop', who: 'dev', path: () => '/desktop', shows: () => [LATIN_APP.name, RTL_APP.name, ASTRAL_APP.name, DEV_NAME] },
  { name: 'desktop, a window open', who: 'dev', path: () => `/desktop?open=${LATIN_APP.slug}`, shows: () => [LATIN_APP.name] },
  { name: 'developer dashboard', who: 'dev', path: () => '/developer', shows: () => [LATIN_APP.name, LATIN_APP.slug, ASTRAL_APP.name, DEV_NAME] },
  { name: 'developer app page', who: 'dev', path: () => `/developer/apps/${LATIN_APP.slug}`, shows: () => [...appTexts(LATIN_APP), LATIN_APP.slug, LATIN_APP.url, LATIN_APP.chain, LATIN_TAGS[0]!] },
  { name: 'developer dashboard, a blocked app', who: 'dev2', path: () => '/developer', shows: () => [BLOCKED_APP.name, RTL_APP.name, DEV2_NAME] },
  { name: 'developer app page, blocked and appealed', who: 'dev2', path: () => `/developer/apps/${BLOCKED_APP.slug}`, shows: () => [BLOCKED_APP.name, BLOCK_REASON, APPEAL] },
  { name: 'account', who: 'dev', path: () => '/me', shows: () => [DEV_NAME] },
  { name: 'bookmarks', who: 'dev', path: () => '/me/bookmarks', shows: () => [LATIN_SITE.title, RTL_SITE.title] },
  { name: 'submissions', who: 'dev', path: () => '/me/submissions', shows: () => [LATIN_SITE.title, RTL_SITE.title, ASTRAL_SITE.title] },
  { name: 'moderation queue', who: 'moderator', path: () => '/moderation', shows: () => [BLOCKED_APP.name, APPEAL, MOD_NAME] },
  { name: 'moderation app page', who: 'moderator', path: () => `/moderation/apps/${BLOCKED_APP.slug}`, shows: () => [BLOCKED_APP.name, REPORT_DETAIL, APPEAL] },
  { name: 'audit log (apps)', who: 'moderator', path: () => '/moderation/audit', shows: () => [BLOCK_REASON, APPEAL] },
  { name: 'audit log (sites)', who: 'moderator', path: () => '/moderation/audit?source=sites', shows: () => [HIDE_REASON] },
  { name: 'audit log (chat)', who: 'moderator', path: () => '/moderation/audit?source=chat', shows: () => [MUTE_REASON] },
  { name: 'moderation tools', who: 'moderator', path: () => '/moderation/tools', shows: () => [MOD_NAME] },
];

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

describe('pages with the longest user text', () => {
  it.each(PAGES.map((p) => [p.name, p] as const))('%s: never wider than the window, user text wraps and keeps its direction', async (_, spec) => {
    const page = await pageAs(spec.who);
    const problems: string[] = [];
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      const res = await page.goto(spec.path());
      expect(res?.status()).toBe(200);
      await hydrated(page);
      await page.evaluate(async () => {
        await document.fonts.ready;
        for (const details of document.querySelectorAll('main details')) (details as HTMLDetailsElement).open = true;
        const dialog = document.querySelector<HTMLDialogElement>('main dialog:not([open])');
        dialog?.showModal();
      });
      const findings = await page.evaluate(inspect, { needles: USER_TEXTS.map(needle), clamps: Object.keys(CLAMPS) });
      const at = `${spec.name} (${spec.path().slice(0, 60)}) at ${size.width} px`;
      problems.push(...findings.problems.map((p) => `${at}: ${p}`));
      for (const text of spec.shows()) {
        if (!findings.found.includes(needle(text))) problems.push(`${at}: “${needle(text)}…” is not on the page`);
      }
      for (const clamp of findings.clamps) clampsSeen.add(clamp);
    }
    expect(problems).toEqual([]);
  });

  it('names only clamps some page shows', () => {
    expect([...clampsSeen].sort()).toEqual(Object.keys(CLAMPS).sort());
  });
});

describe('forms', () => {
  it('take the longest valid text of astral characters: maxlength counts UTF-16 units, the limits code points', async () => {
    const page = await pageAs('dev');
    await page.setViewportSize({ width: 1280, height: 800 });
    // A new app with its name, description and chain at their limits (two UTF-16 units each).
    const typed = { name: word('𩸽𠮷🎉', 80), description: word('🎉𠮷 𩸽', 2000), chain: word('🔗𠮷', 64) };
    await page.goto('/developer');
    await hydrated(page);
    const fields = {
      name: page.getByLabel('Name', { exact: true }),
      description: page.getByLabel('Description'),
      chain: page.getByLabel('Chain (optional)'),
    };
    await page.getByLabel('Slug (address name)').fill('typed-astral');
    await page.getByLabel('Address (URL)').fill('https://typed.example/');
    for (const [field, locator] of Object.entries(fields)) {
      await locator.fill(typed[field as keyof typeof typed]);
      // The browser kept every character.
      expect(await locator.inputValue()).toBe(typed[field as keyof typeof typed]);
    }
    await page.getByRole('button', { name: 'Submit app' }).click();
    await page.waitForURL('**/developer/apps/typed-astral?created=1');
    const { body } = await api<{ app: typeof typed }>('/api/v1/apps/typed-astral', { ip: DEV_IP });
    expect({ name: body.app.name, description: body.app.description, chain: body.app.chain }).toEqual(typed);

    // A report's details: 500 emoji fit, and the counter counts them as 500 characters.
    await page.goto(`/apps/${RTL_APP.slug}`);
    await hydrated(page);
    await page.getByRole('button', { name: 'Report' }).click();
    const dialog = page.getByRole('dialog');
    const detail = word('🎉', 500);
    await dialog.getByLabel('Details (optional)').fill(detail);
    expect(await dialog.getByLabel('Details (optional)').inputValue()).toBe(detail);
    await dialog.getByText('500 / 500 characters').waitFor();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByText(/Reports still needed for an automatic block: \d\./).waitFor();

    // A chat message of 200 characters: family emoji of 7 code points (11 UTF-16 units) each.
    const message = word('👩‍👩‍👧‍👦', 200);
    await page.goto('/');
    await hydrated(page);
    const box = page.getByLabel('Your message');
    await box.fill(message);
    expect(await box.inputValue()).toBe(message);
    await box.press('Enter');
    await page.waitForFunction(() => (document.getElementById('chat-input') as HTMLInputElement).value === '');
    const { body: chat } = await api<{ messages: { content: string }[] }>('/api/messages', { ip: DEV_IP });
    expect(chat.messages.map((m) => m.content)).toContain(message);

    // A moderator's reason for hiding a site: 500 characters, checked by the page before it is sent.
    const moderator = await pageAs('moderator');
    await moderator.setViewportSize({ width: 1280, height: 800 });
    const reason = word('🚫𠮷', 500);
    await moderator.goto('/moderation/tools');
    await hydrated(moderator);
    const hide = moderator.getByRole('form', { name: 'Hide a site' });
    await hide.getByLabel('Site id').fill(siteIds[ASTRAL_SITE.path]!);
    await hide.getByLabel('Reason').fill(reason);
    expect(await hide.getByLabel('Reason').inputValue()).toBe(reason);
    await hide.getByRole('button', { name: 'Hide site' }).click();
    await hide.getByText(`The site ${siteIds[ASTRAL_SITE.path]} is hidden.`).waitFor();
    const { body: audit } = await api<{ entries: { reason: string }[] }>('/api/moderation/sites/audit', { cookie: cookies.moderator, ip: MOD_IP });
    expect(audit.entries[0]?.reason).toBe(reason);
  });
});
