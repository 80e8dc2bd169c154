// Withdrawing an app through the gateway, with the real gateway, auth and app-store processes
// and the built `svc` (docs/decisions/033-withdraw-an-app.md): the author withdraws; the
// listing, search, detail, icon, a reader's desktop and the app's key no longer have it; the
// author's list says when it goes for good; the slug stays taken; 401, 403, 404, 429; the
// author deletes it for good with svc; and the process's own sweep deletes an app whose 30
// days are over, with its audit entry and metric. Every answer is checked against the
// served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPgPool } from '@svc/service-kit';
import { eventually, type ServiceProcess, type TestDatabase } from '@svc/service-kit/testing';
import { APP_WITHDRAWAL_RETENTION_DAYS } from '@svc/types';
import { loadContract, type Contract, type ContractRequestInit } from './contract-harness.js';
import { login as loginWith, type LoggedIn } from './login.js';
import { freshHome, runSvc } from './svc-binary.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const system = createTestSystem();
let resend: FakeResend;
let gateway: ServiceProcess;
let appStore: ServiceProcess;
let appStoreDb: TestDatabase;
let contract: Contract;
const DAY = 86_400_000;
const EMAIL_DOMAIN = 'withdraw-system.test';
/** A withdrawn app whose days were over while no process ran: the sweep at start deletes it. */
const DUE = { id: 'app_due_before_start', slug: 'long-gone' };

beforeAll(async () => {
  resend = await system.resend();
  appStoreDb = await system.database('app-store');
  const pool = createPgPool(appStoreDb.target, 1);
  try {
    const withdrawnAt = new Date(Date.now() - (APP_WITHDRAWAL_RETENTION_DAYS + 10) * DAY);
    const purgeAt = new Date(Date.now() - 10 * DAY);
    await pool.query(
      `INSERT INTO apps (id, slug, name, url, author_id, author_name, status, withdrawn_at, purge_at, updated_at)
       VALUES ($1, $2, 'Long Gone', 'https://long-gone.example', 'u_departed', 'departed', 'withdrawn', $3, $4, now())`,
      [DUE.id, DUE.slug, withdrawnAt, purgeAt],
    );
    await pool.query('INSERT INTO slug_reservations (slug, reserved_until) VALUES ($1, $2)', [DUE.slug, purgeAt]);
  } finally {
    await pool.end();
  }
  const auth = await system.service('auth');
  appStore = await system.service('app-store', { APP_STORE_DATABASE_URL: appStoreDb.url });
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth.url,
    APP_STORE_URL: appStore.url,
  });
  contract = await loadContract(gateway.url);
}, 90_000);

afterAll(() => system.stop(), 60_000);

let ipCounter = 0;
/** Each caller from its own address, so per-IP limits of one step never reach the next. */
const call = (p: string, init: ContractRequestInit & { ip?: string; bearer?: string } = {}) => {
  const { ip = `203.0.113.${++ipCounter}`, bearer, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('x-forwarded-for', ip);
  if (bearer) headers.set('authorization', `Bearer ${bearer}`);
  return contract.request(p, { ...rest, headers });
};
const login = (name: string): Promise<LoggedIn> => loginWith(call, resend, `${name}@${EMAIL_DOMAIN}`);

/** svc run by the author, logged in as `user` (the session file svc login writes). */
function svcAs(user: LoggedIn) {
  const home = freshHome();
  const dir = path.join(home, '.config', 'svc');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = user.cookie.slice(user.cookie.indexOf('=') + 1);
  writeFileSync(path.join(dir, 'session.json'), JSON.stringify({ version: 1, sessions: { [gateway.url]: { token } } }), {
    mode: 0o600,
  });
  return (args: string[]) => runSvc(args, { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), SVC_BASE_URL: gateway.url });
}

describe('an author withdraws an app', () => {
  const slug = 'farewell-app';
  let author: LoggedIn;
  let reader: LoggedIn;
  let key = '';

  it('the app is listed, installed by a reader, and its key works', async () => {
    author = await login('author');
    reader = await login('reader');
    const created = await call('/api/v1/apps', {
      method: 'POST',
      cookie: author.cookie,
      body: { slug, name: 'Farewell Kakapo', url: 'https://farewell.example' },
    });
    expect(created.status).toBe(201);
    key = (await call(`/api/v1/apps/${slug}/keys`, { method: 'POST', cookie: author.cookie })).body.key;
    expect((await call(`/api/v1/me/installed/${slug}`, { method: 'PUT', cookie: reader.cookie })).status).toBe(200);
    expect((await call('/api/v1/me/installed', { cookie: reader.cookie })).body.apps).toHaveLength(1);
    expect((await call('/api/v1/apps?q=kakapo')).body.meta.total).toBe(1);
    expect((await call('/api/v1/me', { bearer: key })).status).toBe(200);
  });

  it('401 without a session, 403 for the key and for another user, 404 for an unknown slug', async () => {
    expect((await call(`/api/v1/apps/${slug}`, { method: 'DELETE' })).status).toBe(401);
    const byKey = await call(`/api/v1/apps/${slug}`, { method: 'DELETE', bearer: key });
    expect([byKey.status, byKey.body.error]).toEqual([403, 'API keys cannot be used for this endpoint; use the session cookie']);
    const byReader = await call(`/api/v1/apps/${slug}`, { method: 'DELETE', cookie: reader.cookie });
    expect([byReader.status, byReader.body.error]).toEqual([403, 'Only the author of the app can withdraw it']);
    expect((await call('/api/v1/apps/no-such-app', { method: 'DELETE', cookie: author.cookie })).status).toBe(404);
    expect((await call(`/api/v1/apps/${slug}?permanent=maybe`, { method: 'DELETE', cookie: author.cookie })).status).toBe(400);
    expect((await call(`/api/v1/apps/${slug}`)).status).toBe(200);
  });

  it('204; then gone from the listing, search, detail, icon, the desktop; its key refused', async () => {
    const withdrawn = await call(`/api/v1/apps/${slug}`, { method: 'DELETE', cookie: author.cookie });
    expect(withdrawn.status).toBe(204);
    expect((await call('/api/v1/apps?q=kakapo')).body).toMatchObject({ apps: [], meta: { total: 0 } });
    const all = await call('/api/v1/apps?limit=100');
    expect(all.body.apps.map((a: { slug: string }) => a.slug)).not.toContain(slug);
    expect((await call(`/api/v1/apps/${slug}`)).status).toBe(404);
    expect((await call(`/api/v1/apps/${slug}/icon`)).status).toBe(404);
    expect((await call('/api/v1/me/installed', { cookie: reader.cookie })).body.apps).toEqual([]);
    expect((await call('/api/v1/me', { bearer: key })).status).toBe(401);
    // Again: nothing changes.
    expect((await call(`/api/v1/apps/${slug}`, { method: 'DELETE', cookie: author.cookie })).status).toBe(204);
    // Another user does not learn it exists.
    expect((await call(`/api/v1/apps/${slug}`, { method: 'DELETE', cookie: reader.cookie })).status).toBe(404);
  });

  it('stays in the author’s list as withdrawn, with when it goes for good; the slug stays taken', async () => {
    const mine = await call('/api/v1/me/apps', { cookie: author.cookie });
    const app = mine.body.apps.find((a: { slug: string }) => a.slug === slug);
    expect(app.status).toBe('withdrawn');
    expect(Date.parse(app.purge_at) - Date.parse(app.withdrawn_at)).toBe(APP_WITHDRAWAL_RETENTION_DAYS * DAY);
    const taken = await call('/api/v1/apps', {
      method: 'POST',
      cookie: reader.cookie,
      body: { slug, name: 'Not yours', url: 'https://not-yours.example' },
    });
    expect([taken.status, taken.body.error]).toEqual([409, 'Slug already taken']);
  });

  it('the author deletes it for good with svc; the slug stays reserved', async () => {
    const svc = svcAs(author);
    const listed = await svc(['apps', 'list', '--mine']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${slug}: withdrawn .*; deleted for good `));
    const deleted = await svc(['apps', 'withdraw', slug, '--permanent', '--json']);
    expect([deleted.code, deleted.stderr]).toEqual([0, '']);
    expect(JSON.parse(deleted.stdout)).toEqual({ slug, withdrawn: true, permanent: true });
    expect((await call('/api/v1/me/apps', { cookie: author.cookie })).body.apps).toEqual([]);
    expect((await call(`/api/v1/apps/${slug}`, { method: 'DELETE', cookie: author.cookie })).status).toBe(404);
    const taken = await call('/api/v1/apps', {
      method: 'POST',
      cookie: reader.cookie,
      body: { slug, name: 'Still not yours', url: 'https://not-yours.example' },
    });
    expect(taken.status).toBe(409);
    // A key cannot withdraw, also from svc: the API's 403, exit 1.
    const byKey = await runSvc(['apps', 'withdraw', 'any-app'], { HOME: freshHome(), SVC_BASE_URL: gateway.url, SVC_API_KEY: key });
    expect(byKey.code).toBe(1);
  });

  it('429 past 60 a minute per user', async () => {
    const busy = await login('busy');
    for (let i = 0; i < 60; i++) {
      const res = await call('/api/v1/me', { cookie: busy.cookie });
      if (res.status !== 200) throw new Error(`request ${i + 1} answered ${res.status}`);
    }
    const limited = await call('/api/v1/apps/any-app', { method: 'DELETE', cookie: busy.cookie });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the purge sweep of the process', () => {
  it('deleted the app whose days were over before it started: audit entry, metric, the slug free', async () => {
    const pool = createPgPool(appStoreDb.target, 1);
    try {
      const gone = await eventually(async () => {
        const { rows } = await pool.query('SELECT count(*)::int AS n FROM apps WHERE id = $1', [DUE.id]);
        return rows[0].n === 0 ? true : undefined;
      });
      expect(gone).toBe(true);
      const { rows: entries } = await pool.query(
        "SELECT actor, action, reason FROM audit_log WHERE target_type = 'app' AND target_id = $1",
        [DUE.id],
      );
      expect(entries).toEqual([
        { actor: 'system', action: 'app.deleted', reason: 'deleted for good 30 days after its withdrawal' },
      ]);
      const { rows: reserved } = await pool.query('SELECT count(*)::int AS n FROM slug_reservations WHERE slug = $1', [DUE.slug]);
      expect(reserved[0].n).toBe(0);
    } finally {
      await pool.end();
    }
    const metrics = await (await fetch(`${appStore.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^app_store_apps_purged_total\{service="app-store"\} 1$/m);
    expect(metrics).toMatch(/^app_store_apps_purge_overdue\{service="app-store"\} 0$/m);
    const reader = await login('newcomer');
    const created = await call('/api/v1/apps', {
      method: 'POST',
      cookie: reader.cookie,
      body: { slug: DUE.slug, name: 'A new Long Gone', url: 'https://long-gone.example' },
    });
    expect(created.status).toBe(201);
  });
});
