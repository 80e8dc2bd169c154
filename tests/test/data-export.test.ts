// "Export my data" through the gateway, with the real gateway, auth, app-store, sites and
// chat processes on PostgreSQL and Redis: a user with data in every service (a site
// submitted and claimed, a bookmark, a boost, a chat message and a like, an app with a key,
// an install, a report of another app, a block and its appeal) downloads everything, and
// nothing of another user or of the moderator comes with it. Every answer is checked
// against the served OpenAPI document (ExportResponse, Content-Disposition). Then the
// limits: 401 without a session, 429 past 3 an hour (`svc account export` counted among
// them), the internal path unreachable from outside, and 503 (never a partial export)
// while chat is down.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  DEV_INTERNAL_TOKEN,
  ExportResponse,
  INTERNAL_TOKEN_HEADER,
  internalUserExportPath,
} from '@svc/types';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract, type ContractRequestInit } from './contract-harness.js';
import { startFakeWebsite } from './contract-system-fakes.js';
import { login as loginWith, type LoggedIn } from './login.js';
import { freshHome, runSvc } from './svc-binary.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const INTERNAL_TOKEN = 'data-export-internal-token-0123456789';
const IP_HASH_SECRET = 'data-export-ip-hash-secret-0123456789';
const DOMAIN = 'data-export.test';

const system = createTestSystem();
let resend: FakeResend;
let website: Awaited<ReturnType<typeof startFakeWebsite>>;
let chat: ServiceProcess;
let gateway: ServiceProcess;
let contract: Contract;

beforeAll(async () => {
  [resend, website] = await Promise.all([system.resend(), startFakeWebsite().then(system.track)]);
  const internal = { INTERNAL_TOKEN };
  const [appStore, sites, chatProcess] = await Promise.all([
    system.service('app-store', { ...internal, IP_HASH_SECRET, APP_STORE_LISTING_CACHE_MS: '0' }),
    system.service('sites', { ...internal, IP_HASH_SECRET, OUTBOUND_ALLOW_HOSTS: website.host }),
    system.service('chat', { ...internal, IP_HASH_SECRET }),
  ]);
  chat = chatProcess;
  const auth = await system.service('auth', {
    ...internal,
    MODERATOR_EMAILS: `moderator@${DOMAIN}`,
    APP_STORE_URL: appStore.url,
    SITES_URL: sites.url,
    CHAT_URL: chat.url,
    DATA_EXPORT_TIMEOUT_MS: '3000',
  });
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth.url,
    APP_STORE_URL: appStore.url,
    SITES_URL: sites.url,
    CHAT_URL: chat.url,
    TRUST_PROXY: 'loopback',
  });
  contract = await loadContract(gateway.url);
}, 90_000);

afterAll(() => system.stop(), 60_000);

let ipCounter = 0;
/** Each call from its own client address, so per-IP limits never meet. */
const call = (urlPath: string, init: ContractRequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set('x-forwarded-for', `203.0.113.${++ipCounter % 250}`);
  return contract.request(urlPath, { ...init, headers });
};
const login = (name: string): Promise<LoggedIn> => loginWith(call, resend, `${name}@${DOMAIN}`);
const idOf = async (user: LoggedIn): Promise<string> =>
  (await call('/api/auth/me', { cookie: user.cookie })).body.user.id;

/** One step of the set-up, which must succeed. */
async function ok(urlPath: string, init: ContractRequestInit & { status?: number[] } = {}) {
  const res = await call(urlPath, init);
  if (!(init.status ?? [200, 201, 204]).includes(res.status))
    throw new Error(`${init.method ?? 'GET'} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe('a user with data in every service exports it', () => {
  let ann: LoggedIn;
  let bob: LoggedIn;
  let moderator: LoggedIn;
  let annId: string;
  let bobId: string;
  let moderatorId: string;
  /** Ids of what the set-up made. */
  const made = { annSite: '', bobSite: '', annMessage: '', bobMessage: '', annKeyId: '', annKeySecret: '', bobKeyId: '' };

  beforeAll(async () => {
    [ann, bob, moderator] = await Promise.all([login('ann'), login('bob'), login('moderator')]);
    [annId, bobId, moderatorId] = await Promise.all([idOf(ann), idOf(bob), idOf(moderator)]);

    // sites: ann submits (with an Idempotency-Key) and claims a site, bookmarks and boosts bob's.
    const annSite = await ok('/api/sites', {
      method: 'POST',
      cookie: ann.cookie,
      headers: { 'Idempotency-Key': 'ann-first-submit' },
      body: { url: website.url('/claimable/ann') },
    });
    made.annSite = annSite.site.id;
    made.bobSite = (await ok('/api/sites', { method: 'POST', cookie: bob.cookie, body: { url: website.url('/bob') } })).site.id;
    website.verify(made.annSite);
    await ok(`/api/sites/${made.annSite}/claim`, { method: 'POST', cookie: ann.cookie });
    await ok('/api/bookmarks', { method: 'POST', cookie: ann.cookie, body: { site_id: made.bobSite } });
    await ok('/api/bookmarks', { method: 'POST', cookie: bob.cookie, body: { site_id: made.annSite } });
    await ok(`/api/sites/${made.bobSite}/boost`, { method: 'POST', cookie: ann.cookie });
    await ok(`/api/sites/${made.annSite}/boost`, { method: 'POST', cookie: bob.cookie });

    // chat: one message each, each likes the other's.
    made.annMessage = (await ok('/api/messages', { method: 'POST', cookie: ann.cookie, body: { content: 'ann was here' } })).message.id;
    made.bobMessage = (await ok('/api/messages', { method: 'POST', cookie: bob.cookie, body: { content: 'a secret of bob' } })).message.id;
    await ok(`/api/messages/${made.bobMessage}/like`, { method: 'POST', cookie: ann.cookie });
    await ok(`/api/messages/${made.annMessage}/like`, { method: 'POST', cookie: bob.cookie });

    // app store: ann's app and key, bob's app installed and reported by ann; a moderator
    // blocks ann's app and she appeals.
    await ok('/api/v1/apps', { method: 'POST', cookie: ann.cookie, body: { slug: 'ann-export-app', name: 'Ann Export App', url: 'https://ann.example' } });
    await ok('/api/v1/apps', { method: 'POST', cookie: bob.cookie, body: { slug: 'bob-export-app', name: 'Bob Export App', url: 'https://bob.example' } });
    const annKey = await ok('/api/v1/apps/ann-export-app/keys', { method: 'POST', cookie: ann.cookie });
    made.annKeyId = annKey.id;
    made.annKeySecret = annKey.key;
    made.bobKeyId = (await ok('/api/v1/apps/bob-export-app/keys', { method: 'POST', cookie: bob.cookie })).id;
    await ok('/api/v1/me/installed/bob-export-app', { method: 'PUT', cookie: ann.cookie });
    await ok('/api/v1/me/installed/ann-export-app', { method: 'PUT', cookie: bob.cookie });
    await ok('/api/v1/apps/bob-export-app/report', { method: 'POST', cookie: ann.cookie, body: { reason: 'spam', detail: 'ads in every window' } });
    await ok('/api/v1/moderation/apps/ann-export-app/block', { method: 'POST', cookie: moderator.cookie, body: { reason: 'looks like phishing' } });
    await ok('/api/v1/me/apps/ann-export-app/appeal', { method: 'POST', cookie: ann.cookie, body: { text: 'it is a login demo' } });
  }, 90_000);

  let exported: ExportResponse;

  it('answers 200 with a download of every section, each item with its timestamps', async () => {
    const res = await call('/api/auth/export', { cookie: ann.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="svc-export-${new Date().toISOString().slice(0, 10)}.json"`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    exported = ExportResponse.parse(res.body);
    const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/);

    expect(exported.user).toMatchObject({ id: annId, email: ann.email, username: ann.username, created_at: iso, moderator: null });
    expect(exported.sites.submissions).toEqual([
      { site: expect.objectContaining({ id: made.annSite }), submitted_at: iso, first: true },
    ]);
    expect(exported.sites.claims).toEqual([{ site: expect.objectContaining({ id: made.annSite }), claimed_at: iso }]);
    expect(exported.sites.bookmarks).toEqual([{ site: expect.objectContaining({ id: made.bobSite }), created_at: iso }]);
    expect(exported.sites.boosts).toEqual([
      { id: expect.any(String), site: expect.objectContaining({ id: made.bobSite }), day: expect.any(String), created_at: iso },
    ]);
    expect(exported.sites.idempotency_keys).toEqual([{ key: 'ann-first-submit', created_at: iso }]);

    expect(exported.chat.messages).toEqual([
      expect.objectContaining({ id: made.annMessage, content: 'ann was here', sender_name: ann.username, like_count: 1, created_at: iso, deleted_at: null }),
    ]);
    expect(exported.chat.likes).toEqual([{ message_id: made.bobMessage, created_at: iso }]);

    const app = { id: expect.any(String), slug: 'ann-export-app', name: 'Ann Export App' };
    expect(exported.apps.developer).toEqual({ email: ann.email, username: ann.username, updated_at: iso });
    expect(exported.apps.apps).toEqual([
      expect.objectContaining({
        slug: 'ann-export-app',
        status: 'blocked',
        created_at: iso,
        block: expect.objectContaining({ by: 'moderator', reason_summary: 'looks like phishing', appeal: { text: 'it is a login demo', created_at: iso } }),
      }),
    ]);
    expect(exported.apps.api_keys).toEqual([
      { id: made.annKeyId, app, prefix: expect.any(String), created_at: iso, last_used_at: null, revoked_at: null },
    ]);
    expect(exported.apps.installs).toEqual([
      { app: expect.objectContaining({ slug: 'bob-export-app' }), installed_at: iso, removed_at: null },
    ]);
    expect(exported.apps.reports).toEqual([
      expect.objectContaining({ app: expect.objectContaining({ slug: 'bob-export-app' }), reason: 'spam', detail: 'ads in every window', created_at: iso }),
    ]);
    expect(exported.apps.appeals).toEqual([expect.objectContaining({ app, text: 'it is a login demo', created_at: iso, closed_at: null })]);

    expect(exported.moderation.by_you.map((e) => [e.service, e.action])).toEqual([['app-store', 'app.appealed']]);
    expect(exported.moderation.about_you.map((e) => [e.service, e.action, e.actor, e.reason])).toEqual([
      ['app-store', 'app.blocked', 'moderator', 'looks like phishing'],
    ]);
  });

  it('holds nothing of another user, of the moderator, nor any secret or hash', () => {
    const text = JSON.stringify(exported);
    for (const other of [
      bobId,
      bob.email,
      `"${bob.username}"`,
      'a secret of bob',
      made.bobKeyId,
      moderatorId,
      moderator.email,
      made.annKeySecret,
      'hash',
      'reporter_network',
      'fingerprint',
    ])
      expect({ other, found: text.includes(other) }).toEqual({ other, found: false });
    // Bob's bookmark, boost and like of ann's things are his, not hers.
    expect(exported.sites.bookmarks.map((b) => b.site.id)).not.toContain(made.annSite);
    expect(exported.chat.likes.map((l) => l.message_id)).not.toContain(made.annMessage);
  });

  it("a moderator's export holds their actions; the one moderated sees a role", async () => {
    const res = await call('/api/auth/export', { cookie: moderator.cookie });
    const theirs = ExportResponse.parse(res.body);
    expect(theirs.user.moderator).toEqual({ source: 'configuration', granted_by: null, granted_at: null });
    expect(theirs.moderation.by_you.map((e) => [e.action, e.target_id])).toEqual([['app.blocked', exported.apps.apps[0]!.id]]);
    expect(JSON.stringify(theirs)).not.toContain(ann.email);
  });

  it('svc account export writes the same document to stdout', async () => {
    const home = freshHome();
    const dir = path.join(home, 'config', 'svc');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const token = ann.cookie.replace(/^sn_token=/, '');
    writeFileSync(path.join(dir, 'session.json'), JSON.stringify({ version: 1, sessions: { [gateway.url]: { token } } }), { mode: 0o600 });
    const res = await runSvc(['account', 'export'], { HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), SVC_BASE_URL: gateway.url });
    expect([res.code, res.stderr]).toEqual([0, '']);
    const fromCli = ExportResponse.parse(JSON.parse(res.stdout));
    expect({ ...fromCli, exported_at: 'x' }).toEqual({ ...exported, exported_at: 'x' });
  }, 30_000);

  it('answers 429 past 3 exports an hour (the CLI counted), and 401 without a session', async () => {
    expect((await call('/api/auth/export', { cookie: ann.cookie })).status).toBe(200);
    const refused = await call('/api/auth/export', { cookie: ann.cookie });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const anonymous = await call('/api/auth/export');
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: 'Authentication required' }]);
  });

  it('never reaches an internal path from outside, whatever the spelling or the token', async () => {
    const secret = { [INTERNAL_TOKEN_HEADER]: INTERNAL_TOKEN };
    for (const target of [
      internalUserExportPath(annId),
      `/Internal/users/${annId}/export`,
      `/%69nternal/users/${annId}/export`,
      `/api/sites/../../internal/users/${annId}/export`,
      `/api/v1/..%2f..%2finternal/users/${annId}/export`,
      `/api/messages/%2e%2e/%2e%2e/internal/users/${annId}/export`,
    ]) {
      for (const headers of [{}, secret, { [INTERNAL_TOKEN_HEADER]: DEV_INTERNAL_TOKEN }]) {
        const res = await rawGet(target, headers);
        expect({ target, status: res.status }).toEqual({ target, status: 404 });
        expect(res.text).not.toContain(ann.email);
      }
    }
  });

  it('answers 503 and sends nothing while chat is down: never a partial export', async () => {
    await chat.stop();
    const res = await call('/api/auth/export', { cookie: bob.cookie });
    expect([res.status, res.body]).toEqual([503, { error: 'Service temporarily unavailable' }]);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('content-disposition')).toBeNull();
  });
});

/** A GET with the request target exactly as written (fetch would resolve dot segments). */
function rawGet(target: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}
