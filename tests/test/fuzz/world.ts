// The data a fuzz run needs for its valid requests to succeed: users with sessions (one a
// moderator by configuration), apps in each state, API keys, sites, bookmarks and chat
// messages, made through the API (every answer checked against the contract) before the
// run. Each state-changing operation gets its own pool (apps to block, blocked apps to
// restore or appeal, sites to claim or hide, messages to delete or mute), so one
// operation using up its targets never takes another's away.
import type { Contract, ContractAnswer, ContractRequestInit } from '../contract-harness.js';
import { login } from '../login.js';
import type { FakeResend } from '../system-processes.js';

export const FUZZ_DOMAIN = 'fuzz.test';
/** MODERATOR_EMAILS of the fuzzed auth process. */
export const MODERATOR_EMAIL = `moderator@${FUZZ_DOMAIN}`;

export const SESSIONS = ['moderator', 'authorA', 'authorB', 'member1', 'member2', 'member3', 'member4', 'member5', 'renamer'] as const;
export type Who = (typeof SESSIONS)[number];
export const KEYS = ['keyA1', 'keyB1', 'revoked'] as const;
export type KeyName = (typeof KEYS)[number];

export interface Session {
  /** `sn_token=...`; replaced when an answer sets a fresh one (set-username). */
  cookie: string;
  email: string;
  userId: string;
}

export interface World {
  sessions: Record<Who, Session>;
  keys: Record<KeyName, string>;
  apps: {
    /** Approved, of authorA; the first has an icon. */
    stable: string[];
    /** Approved, of authorB. */
    others: string[];
    /** Blocked by a moderator, of authorA, not appealed. */
    appealable: string[];
    /** Blocked by a moderator, of authorB. */
    restorable: string[];
    /** Approved, of authorB, for moderators to block. */
    blockable: string[];
    /** Approved, of authorB, for members to report. */
    reportable: string[];
  };
  /**
   * Approved, of authorA, for authorA to withdraw (or delete for good). Kept out of `apps`
   * and `allSlugs`, so no other operation meets them withdrawn or gone.
   */
  withdrawable: string[];
  /** Who may change which app, and the key that may (for updateApp, keys, audits). */
  owners: Array<{ who: Who; slug: string; key?: KeyName }>;
  /** Keys of authorA's second stable app, for revokeApiKey. */
  revocableKeys: Array<{ slug: string; id: string }>;
  sites: { stable: string[]; claimable: string[]; hideable: string[]; restorable: string[] };
  bookmarks: Array<{ who: Who; siteId: string }>;
  messages: { stable: string[]; deletable: string[]; mutable: string[] };
  /** next_cursor values of real audit pages. */
  cursors: string[];
  captchaToken: string;
  /** URL of a page of the fake web site (claimable pages carry their site's meta tag). */
  websiteUrl: (path: string) => string;
  /** Requests the seeding sent. */
  seedRequests: number;
  /** Every slug, site id, message id and email above, for fields that name something. */
  allSlugs: string[];
  allSiteIds: string[];
  allMessageIds: string[];
  allEmails: string[];
}

export interface SeedDeps {
  contract: Contract;
  resend: FakeResend;
  captchaToken: string;
  website: { url: (path: string) => string; verify: (siteId: string) => void };
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#0a0"/></svg>';

let seedIp = 0;
/** Each seeding request from its own documentation-range address: no per-IP limit bites. */
const nextIp = () => `198.18.${Math.floor(++seedIp / 250)}.${(seedIp % 250) + 1}`;

export async function seedWorld(deps: SeedDeps): Promise<World> {
  const { contract } = deps;
  let sent = 0;
  const call = (path: string, init: ContractRequestInit = {}): Promise<ContractAnswer> => {
    sent++;
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', nextIp());
    return contract.request(path, { ...init, headers });
  };
  const ok = async (answer: Promise<ContractAnswer>, status: number) => {
    const res = await answer;
    if (res.status !== status) throw new Error(`seeding the fuzz run: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
    return res;
  };

  const sessions = {} as Record<Who, Session>;
  for (const who of SESSIONS) {
    const email = who === 'moderator' ? MODERATOR_EMAIL : `${who.toLowerCase()}@${FUZZ_DOMAIN}`;
    const user = await login(call, deps.resend, email);
    const me = await ok(call('/api/auth/me', { cookie: user.cookie }), 200);
    sessions[who] = { cookie: user.cookie, email, userId: me.body.user.id };
  }
  const as = (who: Who) => ({ cookie: sessions[who].cookie });

  const submit = async (who: Who, slug: string) => {
    await ok(call('/api/v1/apps', { method: 'POST', ...as(who), body: { slug, name: `Fuzz ${slug}`, url: `https://${slug}.${FUZZ_DOMAIN}` } }), 201);
    return slug;
  };
  const stable = [await submit('authorA', 'fuzz-a1'), await submit('authorA', 'fuzz-a2')];
  await ok(call('/api/v1/apps/fuzz-a1', { method: 'PATCH', ...as('authorA'), body: { icon_svg: SVG } }), 200);
  const others = [await submit('authorB', 'fuzz-b1'), await submit('authorB', 'fuzz-b2')];
  const many = async (who: Who, prefix: string, n: number) => {
    const slugs: string[] = [];
    for (let i = 1; i <= n; i++) slugs.push(await submit(who, `${prefix}-${i}`));
    return slugs;
  };
  const appealable = await many('authorA', 'fuzz-appeal', 3);
  const restorable = await many('authorB', 'fuzz-restore', 3);
  const blockable = await many('authorB', 'fuzz-block', 3);
  const reportable = await many('authorB', 'fuzz-report', 3);
  const withdrawable = await many('authorA', 'fuzz-withdraw', 3);
  for (const slug of [...appealable, ...restorable])
    await ok(call(`/api/v1/moderation/apps/${slug}/block`, { method: 'POST', ...as('moderator'), body: { reason: 'fuzz seed' } }), 200);

  const createKey = async (who: Who, slug: string) =>
    (await ok(call(`/api/v1/apps/${slug}/keys`, { method: 'POST', ...as(who) }), 201)).body as { id: string; key: string };
  const keyA1 = await createKey('authorA', 'fuzz-a1');
  const keyB1 = await createKey('authorB', 'fuzz-b1');
  const revoked = await createKey('authorA', 'fuzz-a2');
  await ok(call(`/api/v1/apps/fuzz-a2/keys/${revoked.id}`, { method: 'DELETE', ...as('authorA') }), 204);
  const revocableKeys: World['revocableKeys'] = [];
  for (let i = 0; i < 3; i++) revocableKeys.push({ slug: 'fuzz-a2', id: (await createKey('authorA', 'fuzz-a2')).id });

  const submitSite = async (path: string) =>
    (await call('/api/sites', { method: 'POST', body: { url: deps.website.url(path), captchaToken: deps.captchaToken } })).body.site.id as string;
  const sitesOf = async (prefix: string, n: number) => {
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) ids.push(await submitSite(`/${prefix}/${i}`));
    return ids;
  };
  const stableSites = await sitesOf('stable', 3);
  const claimable = await sitesOf('claimable', 3);
  for (const id of claimable) deps.website.verify(id);
  const hideable = await sitesOf('hideable', 3);
  const hiddenSites = await sitesOf('hidden', 3);
  for (const id of hiddenSites)
    await ok(call(`/api/moderation/sites/${id}/hide`, { method: 'POST', ...as('moderator'), body: { reason: 'fuzz seed' } }), 200);
  const bookmarks: World['bookmarks'] = [];
  for (const who of ['member1', 'member2'] as const)
    for (const siteId of stableSites) {
      await ok(call('/api/bookmarks', { method: 'POST', ...as(who), body: { site_id: siteId } }), 201);
      bookmarks.push({ who, siteId });
    }

  const post = async (content: string) =>
    (await ok(call('/api/messages', { method: 'POST', body: { content } }), 201)).body.message.id as string;
  const messagesOf = async (prefix: string, n: number) => {
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) ids.push(await post(`${prefix} ${i}`));
    return ids;
  };
  const messages = {
    stable: await messagesOf('fuzz stable', 3),
    deletable: await messagesOf('fuzz delete', 3),
    mutable: await messagesOf('fuzz mute', 3),
  };
  // One audit entry each in chat, so every audit log has pages to walk.
  await ok(call(`/api/moderation/messages/${messages.deletable.pop()}`, { method: 'DELETE', ...as('moderator') }), 200);
  const cursors: string[] = [];
  for (const path of ['/api/v1/moderation/audit?limit=1', '/api/moderation/sites/audit?limit=1'])
    cursors.push((await ok(call(path, as('moderator')), 200)).body.next_cursor);
  cursors.push((await ok(call(`/api/v1/me/apps/${appealable[0]}/audit?limit=1`, as('authorA')), 200)).body.next_cursor);

  const apps = { stable, others, appealable, restorable, blockable, reportable };
  return {
    sessions,
    keys: { keyA1: keyA1.key, keyB1: keyB1.key, revoked: revoked.key },
    apps,
    withdrawable,
    owners: [
      { who: 'authorA', slug: 'fuzz-a1', key: 'keyA1' },
      { who: 'authorA', slug: 'fuzz-a2' },
      { who: 'authorB', slug: 'fuzz-b1', key: 'keyB1' },
      { who: 'authorB', slug: 'fuzz-b2' },
    ],
    revocableKeys,
    sites: { stable: stableSites, claimable, hideable, restorable: hiddenSites },
    bookmarks,
    messages,
    cursors: cursors.filter((c): c is string => typeof c === 'string'),
    captchaToken: deps.captchaToken,
    websiteUrl: deps.website.url,
    seedRequests: sent,
    allSlugs: Object.values(apps).flat(),
    allSiteIds: [...stableSites, ...claimable, ...hideable, ...hiddenSites],
    allMessageIds: Object.values(messages).flat(),
    allEmails: SESSIONS.map((who) => sessions[who].email),
  };
}
