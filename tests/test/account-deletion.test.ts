// "Delete my account" through the gateway, with the real gateway, auth, app-store, sites and
// chat processes on PostgreSQL and Redis: a user with data in every service (a site submitted
// and claimed, a bookmark, a boost, chat messages and a like, an app with a key, an install,
// a report, a block and its appeal, and, as a moderator, a hidden site, a deleted message, a
// dismissal and a grant) deletes the account with a fresh login code. Every session ends at
// once; once the services' jobs have run, no text or JSON column of any table of any
// service's schema holds the user's id, e-mail or username, while what must stay stays: the
// site (public, unowned), the messages (as "Deleted user"), the report (without the reporter)
// and the audit entries (with a pseudonym). Then the address signs up again as a new user;
// 401 without a session, 400 and 429 for wrong codes, the internal path out of reach (404)
// and refused without the token (403).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DELETED_USER_NAME,
  DeletedUserPseudonym,
  INTERNAL_TOKEN_HEADER,
  internalUserPath,
} from '@svc/types';
import { createPgPool, signSessionToken } from '@svc/service-kit';
import type { ServiceProcess, TestDatabase } from '@svc/service-kit/testing';
import { loadContract, type Contract, type ContractRequestInit } from './contract-harness.js';
import { startFakeWebsite } from './contract-system-fakes.js';
import { login as loginWith, type LoggedIn } from './login.js';
import { createTestSystem, type FakeResend, type ServiceWithDatabase } from './system-processes.js';

const INTERNAL_TOKEN = 'account-deletion-internal-token-0123456789';
const IP_HASH_SECRET = 'account-deletion-ip-hash-secret-0123456789';
const DOMAIN = 'account-deletion.test';
/** The user who leaves: a moderator too, so that their moderation is in the audit logs. */
const LEAVER = `leaver@${DOMAIN}`;
const LEAVER_NAME = 'quokka_leaves_93';

const system = createTestSystem();
let resend: FakeResend;
let website: Awaited<ReturnType<typeof startFakeWebsite>>;
let contract: Contract;
let gateway: ServiceProcess;
let services: Record<'app-store' | 'sites' | 'chat', ServiceProcess>;
const databases = {} as Record<ServiceWithDatabase, TestDatabase>;

beforeAll(async () => {
  [resend, website] = await Promise.all([system.resend(), startFakeWebsite().then(system.track)]);
  for (const s of ['auth', 'app-store', 'sites', 'chat'] as const) databases[s] = await system.database(s);
  const common = { INTERNAL_TOKEN, IP_HASH_SECRET };
  const [appStore, sites, chat] = await Promise.all([
    system.service('app-store', { ...common, APP_STORE_DATABASE_URL: databases['app-store'].url, APP_STORE_LISTING_CACHE_MS: '0' }),
    system.service('sites', { ...common, SITES_DATABASE_URL: databases.sites.url, OUTBOUND_ALLOW_HOSTS: website.host }),
    system.service('chat', { ...common, CHAT_DATABASE_URL: databases.chat.url }),
  ]);
  services = { 'app-store': appStore, sites, chat };
  const auth = await system.service('auth', {
    INTERNAL_TOKEN,
    AUTH_DATABASE_URL: databases.auth.url,
    MODERATOR_EMAILS: `${LEAVER},moderator@${DOMAIN}`,
    APP_STORE_URL: appStore.url,
    SITES_URL: sites.url,
    CHAT_URL: chat.url,
  });
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth.url,
    APP_STORE_URL: appStore.url,
    SITES_URL: sites.url,
    CHAT_URL: chat.url,
    TRUST_PROXY: 'loopback',
  });
  contract = await loadContract(gateway.url);
}, 120_000);

afterAll(() => system.stop(), 60_000);

let ipCounter = 0;
/** Each call from its own client address, so per-IP limits never meet. */
const call = (urlPath: string, init: ContractRequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set('x-forwarded-for', `198.51.100.${++ipCounter % 250}`);
  return contract.request(urlPath, { ...init, headers });
};
const login = (email: string): Promise<LoggedIn> => loginWith(call, resend, email);
const idOf = async (user: LoggedIn): Promise<string> =>
  (await call('/api/auth/me', { cookie: user.cookie })).body.user.id;

async function ok(urlPath: string, init: ContractRequestInit = {}) {
  const res = await call(urlPath, init);
  if (![200, 201, 204].includes(res.status))
    throw new Error(`${init.method ?? 'GET'} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Every text, character, JSON or array column of every table of the services' schemas that
 * holds one of `needles`: `schema-owner.table.column: needle`.
 */
async function findAnywhere(needles: string[]): Promise<string[]> {
  const hits: string[] = [];
  for (const [service, db] of Object.entries(databases)) {
    const pool = createPgPool(db.target, 1);
    try {
      const columns = await pool.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'
           AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`,
        [db.target.schema],
      );
      for (const { table_name: table, column_name: column } of columns.rows) {
        for (const needle of needles) {
          const found = await pool.query(
            `SELECT 1 FROM "${table}" WHERE strpos("${column}"::text, $1) > 0 LIMIT 1`,
            [needle],
          );
          if (found.rowCount) hits.push(`${service}.${table}.${column}: ${needle}`);
        }
      }
    } finally {
      await pool.end();
    }
  }
  return hits;
}

/** Rows of one service's table (the test's own reads, after the deletion). */
async function rows<T>(service: ServiceWithDatabase, sql: string, values: unknown[] = []): Promise<T[]> {
  const pool = createPgPool(databases[service].target, 1);
  try {
    return (await pool.query(sql, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

describe('a user with data in every service deletes the account', () => {
  let leaver: LoggedIn;
  let bob: LoggedIn;
  let moderator: LoggedIn;
  let leaverId: string;
  let bobId: string;
  const made = { leaverSite: '', bobSite: '', leaverMessage: '', bobMessage: '', bobSecondMessage: '', leaverKey: '' };

  beforeAll(async () => {
    [leaver, bob, moderator] = await Promise.all([login(LEAVER), login(`bob@${DOMAIN}`), login(`moderator@${DOMAIN}`)]);
    const renamed = await call('/api/auth/set-username', { method: 'POST', cookie: leaver.cookie, body: { username: LEAVER_NAME } });
    expect(renamed.status).toBe(200);
    leaver = { ...leaver, cookie: renamed.headers.get('set-cookie')!.split(';')[0]!, username: LEAVER_NAME };
    [leaverId, bobId] = await Promise.all([idOf(leaver), idOf(bob)]);

    // auth: the leaver makes bob a moderator (the grant stays, without the leaver's id).
    await ok(`/api/auth/moderators/${encodeURIComponent(bob.email)}`, { method: 'PUT', cookie: leaver.cookie });

    // sites: the leaver submits (with an Idempotency-Key) and claims a site, bookmarks and
    // boosts bob's, and hides bob's second site; bob bookmarks and boosts the leaver's.
    made.leaverSite = (
      await ok('/api/sites', { method: 'POST', cookie: leaver.cookie, headers: { 'Idempotency-Key': 'leaver-submit' }, body: { url: website.url('/claimable/leaver') } })
    ).site.id;
    made.bobSite = (await ok('/api/sites', { method: 'POST', cookie: bob.cookie, body: { url: website.url('/bob') } })).site.id;
    const bobHidden = (await ok('/api/sites', { method: 'POST', cookie: bob.cookie, body: { url: website.url('/bob-hidden') } })).site.id;
    website.verify(made.leaverSite);
    await ok(`/api/sites/${made.leaverSite}/claim`, { method: 'POST', cookie: leaver.cookie });
    await ok('/api/bookmarks', { method: 'POST', cookie: leaver.cookie, body: { site_id: made.bobSite } });
    await ok('/api/bookmarks', { method: 'POST', cookie: bob.cookie, body: { site_id: made.leaverSite } });
    await ok(`/api/sites/${made.bobSite}/boost`, { method: 'POST', cookie: leaver.cookie });
    await ok(`/api/sites/${made.leaverSite}/boost`, { method: 'POST', cookie: bob.cookie });
    await ok(`/api/moderation/sites/${bobHidden}/hide`, { method: 'POST', cookie: leaver.cookie, body: { reason: 'spam' } });

    // chat: a message each, each likes the other's; a moderator mutes the leaver, and the
    // leaver deletes bob's second message.
    made.leaverMessage = (await ok('/api/messages', { method: 'POST', cookie: leaver.cookie, body: { content: 'hello from the leaver' } })).message.id;
    made.bobMessage = (await ok('/api/messages', { method: 'POST', cookie: bob.cookie, body: { content: 'hello from bob' } })).message.id;
    made.bobSecondMessage = (await ok('/api/messages', { method: 'POST', cookie: bob.cookie, body: { content: 'buy cheap stuff' } })).message.id;
    await ok(`/api/messages/${made.bobMessage}/like`, { method: 'POST', cookie: leaver.cookie });
    await ok(`/api/messages/${made.leaverMessage}/like`, { method: 'POST', cookie: bob.cookie });
    await ok('/api/moderation/chat/mutes', { method: 'POST', cookie: moderator.cookie, body: { sender: made.leaverMessage, minutes: 5, reason: 'calm down' } });
    await ok(`/api/moderation/messages/${made.bobSecondMessage}`, { method: 'DELETE', cookie: leaver.cookie });

    // app store: the leaver's app and key, bob's app installed and reported by the leaver; a
    // moderator blocks the leaver's app and the leaver appeals; the leaver dismisses a
    // report of a third app.
    await ok('/api/v1/apps', { method: 'POST', cookie: leaver.cookie, body: { slug: 'leaver-app', name: 'Leaver App', url: 'https://leaver.example' } });
    await ok('/api/v1/apps', { method: 'POST', cookie: bob.cookie, body: { slug: 'bob-app', name: 'Bob App', url: 'https://bob.example' } });
    made.leaverKey = (await ok('/api/v1/apps/leaver-app/keys', { method: 'POST', cookie: leaver.cookie })).key;
    await ok('/api/v1/me/installed/bob-app', { method: 'PUT', cookie: leaver.cookie });
    await ok('/api/v1/me/installed/leaver-app', { method: 'PUT', cookie: bob.cookie });
    await ok('/api/v1/apps/bob-app/report', { method: 'POST', cookie: leaver.cookie, body: { reason: 'spam', detail: 'ads everywhere' } });
    await ok('/api/v1/moderation/apps/leaver-app/block', { method: 'POST', cookie: moderator.cookie, body: { reason: 'looks like phishing' } });
    await ok('/api/v1/me/apps/leaver-app/appeal', { method: 'POST', cookie: leaver.cookie, body: { text: 'it is a login demo' } });
    await ok('/api/v1/apps', { method: 'POST', cookie: bob.cookie, body: { slug: 'third-app', name: 'Third App', url: 'https://third.example' } });
    await ok('/api/v1/apps/third-app/report', { method: 'POST', cookie: moderator.cookie, body: { reason: 'other', detail: 'broken' } });
    await ok('/api/v1/moderation/apps/third-app/dismiss', { method: 'POST', cookie: leaver.cookie, body: { reason: 'works for me' } });

    // Before: the user is everywhere.
    const before = await findAnywhere([leaverId, LEAVER, LEAVER_NAME]);
    for (const service of ['auth', 'app-store', 'sites', 'chat'])
      expect({ service, found: before.some((h) => h.startsWith(`${service}.`)) }).toEqual({ service, found: true });
  }, 120_000);

  const deleteMe = (cookie: string | undefined, body: unknown) =>
    call('/api/auth/me', { method: 'DELETE', cookie, body });

  it('answers 401 without a session, 400 for a wrong code, and deletes nothing then', async () => {
    const none = await deleteMe(undefined, { code: '123456' });
    expect([none.status, none.body]).toEqual([401, { error: 'Authentication required' }]);
    // A session alone is not enough: no code was sent since the login.
    const noCode = await deleteMe(leaver.cookie, { code: '123456' });
    expect([noCode.status, noCode.body]).toEqual([400, { error: 'Invalid or expired code' }]);
    expect((await call('/api/auth/me', { cookie: leaver.cookie })).status).toBe(200);
  });

  it('deletes the account with a fresh code: 200, the cookie cleared, every session ended at once', async () => {
    // Another device's session (signed as auth signs them: a login here would use up the
    // address's codes a minute).
    const other = { cookie: `sn_token=${signSessionToken({ id: leaverId, email: LEAVER, username: LEAVER_NAME }, system.keys.privateKey).token}` };
    expect((await call('/api/auth/me', { cookie: other.cookie })).status).toBe(200);
    await ok('/api/auth/send-code', { method: 'POST', body: { email: LEAVER } });
    const res = await deleteMe(leaver.cookie, { code: resend.lastCodeFor(LEAVER) });
    expect([res.status, res.body]).toEqual([200, { deleted: true }]);
    expect(res.headers.get('set-cookie')).toMatch(/^sn_token=;/);
    for (const cookie of [leaver.cookie, other.cookie]) {
      expect((await call('/api/auth/me', { cookie })).status).toBe(401);
      // Every service refuses the session at once, whatever their jobs' progress.
      expect((await call('/api/bookmarks', { cookie })).status).toBe(401);
      expect((await call('/api/v1/me/apps', { cookie })).status).toBe(401);
    }
  });

  it("leaves no trace of the user's id, e-mail or username in any table of any service", async () => {
    const deadline = Date.now() + 30_000;
    let hits = await findAnywhere([leaverId, LEAVER, LEAVER_NAME]);
    while (hits.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      hits = await findAnywhere([leaverId, LEAVER, LEAVER_NAME]);
    }
    expect(hits).toEqual([]);
    // The app's key went with app-store's part (keys are not sessions: they stop with it).
    const keyed = await call('/api/v1/me/apps', { headers: { authorization: `Bearer ${made.leaverKey}` } });
    expect(keyed.status).toBe(401);
  }, 60_000);

  it('keeps what is public or needed for moderation, without the person', async () => {
    // The site stays, nobody's; bob's bookmark of it stays.
    const site = await call(`/api/sites/${made.leaverSite}`);
    expect(site.status).toBe(200);
    const siteRow = await rows('sites', 'SELECT submitted_by, owner_id FROM sites WHERE id = $1', [made.leaverSite]);
    expect(siteRow).toEqual([{ submitted_by: null, owner_id: null }]);
    const bobsBookmarks = await call('/api/bookmarks', { cookie: bob.cookie });
    expect(JSON.stringify(bobsBookmarks.body)).toContain(made.leaverSite);

    // The message stays, from "Deleted user"; bob's like of it stays.
    const messages = await call('/api/messages?limit=50');
    const kept = messages.body.messages.find((m: { id: string }) => m.id === made.leaverMessage);
    expect(kept).toMatchObject({ content: 'hello from the leaver', sender_name: DELETED_USER_NAME });

    // The leaver's apps are gone (their slugs reserved); bob's app and its report stay.
    expect((await call('/api/v1/apps/leaver-app')).status).toBe(404);
    const reports = await call('/api/v1/moderation/apps/bob-app/reports', { cookie: moderator.cookie });
    expect(reports.status).toBe(200);
    expect(JSON.stringify(reports.body)).toContain('ads everywhere');

    // The audit entries stay, each naming one pseudonym instead of the user.
    const pseudonyms = new Set<string>();
    for (const [service, path] of [
      ['app-store', '/api/v1/moderation/audit'],
      ['sites', '/api/moderation/sites/audit'],
      ['chat', '/api/moderation/chat/audit'],
    ] as const) {
      const audit = await call(path, { cookie: moderator.cookie });
      expect({ service, status: audit.status }).toEqual({ service, status: 200 });
      for (const e of audit.body.entries as Array<{ actor: string; target_id: string }>)
        for (const v of [e.actor, e.target_id.replace(/^user:/, '')])
          if (v.startsWith('deleted-user-')) pseudonyms.add(v);
    }
    // One per service: each service rewrote with the pseudonym auth drew for this deletion.
    expect([...pseudonyms].every((p) => DeletedUserPseudonym.safeParse(p).success)).toBe(true);
    expect(pseudonyms.size).toBe(1);
    const grant = await rows<{ granted_by: string }>('auth', 'SELECT granted_by FROM moderator_grants WHERE user_id = $1', [bobId]);
    expect(grant).toEqual([{ granted_by: [...pseudonyms][0] }]);
  });

  it('lets the address sign up again, as a new user with a new id', async () => {
    const again = await login(LEAVER);
    const id = await idOf(again);
    expect(id).not.toBe(leaverId);
    const exported = await call('/api/auth/export', { cookie: again.cookie });
    expect(exported.status).toBe(200);
    expect(exported.body.sites.submissions).toEqual([]);
    expect(exported.body.chat.messages).toEqual([]);
    expect(exported.body.apps.apps).toEqual([]);
  });

  it('answers 429 past five tries an hour', async () => {
    const carol = await login(`carol@${DOMAIN}`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await deleteMe(carol.cookie, { code: '000000' })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });

  it('keeps the internal deletion out of reach from outside (404) and refuses it without the token (403)', async () => {
    const body = JSON.stringify({ pseudonym: 'deleted-user-0123456789abcdef' });
    const outside = await fetch(new URL(internalUserPath(bobId), gateway.url), {
      method: 'DELETE',
      headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: INTERNAL_TOKEN },
      body,
    });
    expect(outside.status).toBe(404);
    for (const service of Object.values(services)) {
      const direct = await fetch(new URL(internalUserPath(bobId), service.url), {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(direct.status).toBe(403);
    }
    expect((await call('/api/auth/me', { cookie: bob.cookie })).status).toBe(200);
  });
});
