// Withdrawing an app (docs/decisions/033-withdraw-an-app.md): DELETE /api/v1/apps/{slug} by
// its author's session; the app leaves the listing, search, detail, icon and every desktop,
// its keys stop at once, it stays in /me/apps as withdrawn with its slug reserved, and is
// deleted for good by the author (permanent=true) or by the sweep once the retention days
// have passed (an injected clock moves time).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Registry } from 'prom-client';
import {
  APP_WITHDRAWAL_RETENTION_DAYS,
  AppListResponse,
  MyAppsResponse,
  type MyApp,
} from '@svc/types';
import { createLogger, createPgAdapter } from '@svc/service-kit';
import { startHarness, type Harness, type TestUser } from './harness.js';
import { KEY_REFUSED_MESSAGE } from '../src/routes/authentication.js';
import { NOT_THE_AUTHOR } from '../src/domain/withdrawal.js';
import { WITHDRAWN_BY_AUTHOR } from '../src/domain/moderation.js';
import { DELETED_AFTER_RETENTION, DELETED_BY_AUTHOR } from '../src/domain/audit-entry.js';
import { createWithdrawalStore } from '../src/store/withdrawal-store.js';
import { createListing, createListingTotals } from '../src/store/listing.js';
import { createListingReader } from '../src/store/listing-reader.js';
import { withdrawAuthorApps } from '../src/actions/withdraw-app.js';
import {
  PURGE_BATCH,
  purgeWithdrawnApps,
  startWithdrawnAppPurge,
} from '../src/actions/purge-withdrawn-apps.js';
import { PrismaClient } from '../src/generated/prisma/client.js';

const DAY = 86_400_000;
const RETENTION = APP_WITHDRAWAL_RETENTION_DAYS * DAY;

/** The app's clock: tests move it days ahead. */
let clock = Date.parse('2026-11-24T10:00:00.000Z');
const now = () => new Date(clock);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 10, now });
});
afterAll(() => h.close());

const as = (u: TestUser) => ({ Cookie: u.cookie });
const withdraw = (u: TestUser | undefined, slug: string, query = '') => {
  const r = request(h.app).delete(`/api/v1/apps/${slug}${query}`);
  return u ? r.set(as(u)) : r;
};
const myApps = async (u: TestUser): Promise<MyApp[]> => {
  const res = await request(h.app).get('/api/v1/me/apps').set(as(u));
  expect(res.status).toBe(200);
  return MyAppsResponse.parse(res.body).apps;
};
const listing = async (query: Record<string, string> = {}) => {
  const res = await request(h.app).get('/api/v1/apps').query(query);
  expect(res.status).toBe(200);
  return AppListResponse.parse(res.body);
};
const auditOf = (appId: string) =>
  h.db.auditLog.findMany({
    where: { targetType: 'app', targetId: appId },
    orderBy: { id: 'asc' },
  });

describe('DELETE /api/v1/apps/{slug}', () => {
  it('withdraws: 204, and the app leaves the listing (total too), search, detail, icon and desktops', async () => {
    const dev = h.user();
    const reader = h.user();
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>';
    await h.seedApp(dev, { slug: 'leaving-app', name: 'Leaving Quokka', iconSvg: svg });
    await h.seedApp(dev, { slug: 'staying-app', name: 'Staying Quokka' });
    await request(h.app).put('/api/v1/me/installed/leaving-app').set(as(reader)).expect(200);
    // Warm the Redis total of this search, so a stale total would show.
    const before = await listing({ q: 'quokka' });
    expect(before.meta.total).toBe(2);

    const res = await withdraw(dev, 'leaving-app');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');

    const after = await listing({ q: 'quokka' });
    expect(after.apps.map((a) => a.slug)).toEqual(['staying-app']);
    expect(after.meta.total).toBe(1);
    expect((await listing({ limit: '100' })).apps.map((a) => a.slug)).not.toContain('leaving-app');
    const detail = await request(h.app).get('/api/v1/apps/leaving-app');
    expect([detail.status, detail.body]).toEqual([404, { error: 'App not found' }]);
    expect((await request(h.app).get('/api/v1/apps/leaving-app/icon')).status).toBe(404);
    // The desktop reads the installed apps: the withdrawn one is not there, nor can it come back.
    const installed = await request(h.app).get('/api/v1/me/installed').set(as(reader));
    expect(installed.body.apps).toEqual([]);
    expect((await request(h.app).put('/api/v1/me/installed/leaving-app').set(as(reader))).status).toBe(404);
  });

  it('keeps the app in its author’s list as withdrawn, with when it goes for good; again is a no-op', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'kept-app' });
    const at = clock;
    await withdraw(dev, 'kept-app').expect(204);
    const expected = {
      status: 'withdrawn',
      withdrawn_at: new Date(at).toISOString(),
      purge_at: new Date(at + RETENTION).toISOString(),
      block: null,
    };
    expect((await myApps(dev)).find((a) => a.slug === 'kept-app')).toMatchObject(expected);
    clock += DAY;
    try {
      await withdraw(dev, 'kept-app').expect(204);
    } finally {
      clock -= DAY;
    }
    // The second withdrawal changed nothing: the same times, one audit entry.
    expect((await myApps(dev)).find((a) => a.slug === 'kept-app')).toMatchObject(expected);
    const row = await h.db.app.findUniqueOrThrow({ where: { slug: 'kept-app' } });
    expect((await auditOf(row.id)).map((e) => [e.action, e.actor])).toEqual([
      ['app.withdrawn', dev.id],
    ]);
    // A live app carries no withdrawal times.
    await h.seedApp(dev, { slug: 'live-app' });
    expect((await myApps(dev)).find((a) => a.slug === 'live-app')).toMatchObject({
      status: 'approved',
      withdrawn_at: null,
      purge_at: null,
    });
    // The author's own history names the withdrawal as theirs.
    const history = await request(h.app).get('/api/v1/me/apps/kept-app/audit').set(as(dev));
    expect(history.body.entries.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['app.withdrawn', 'author'],
    ]);
  });

  it('401 without a session; 403 for an API key, even the app’s own', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'key-held-app' });
    const { key } = await h.createKey(dev, 'key-held-app');
    const anonymous = await withdraw(undefined, 'key-held-app');
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: 'Authentication required' }]);
    const byKey = await request(h.app)
      .delete('/api/v1/apps/key-held-app')
      .set('Authorization', `Bearer ${key}`);
    expect([byKey.status, byKey.body]).toEqual([403, { error: KEY_REFUSED_MESSAGE }]);
    expect((await request(h.app).get('/api/v1/apps/key-held-app')).status).toBe(200);
  });

  it('403 for another user on a listed app; 404 on a blocked or withdrawn one, and for an unknown slug', async () => {
    const dev = h.user();
    const other = h.user();
    await h.seedApp(dev, { slug: 'others-listed' });
    await h.seedApp(dev, { slug: 'others-blocked', status: 'blocked' });
    await h.seedApp(dev, { slug: 'others-withdrawn' });
    await withdraw(dev, 'others-withdrawn').expect(204);
    const listed = await withdraw(other, 'others-listed');
    expect([listed.status, listed.body]).toEqual([403, { error: NOT_THE_AUTHOR }]);
    for (const slug of ['others-blocked', 'others-withdrawn', 'no-such-app']) {
      for (const query of ['', '?permanent=true']) {
        const res = await withdraw(other, slug, query);
        expect([slug, query, res.status, res.body]).toEqual([slug, query, 404, { error: 'App not found' }]);
      }
    }
    expect((await request(h.app).get('/api/v1/apps/others-listed')).status).toBe(200);
    expect((await h.db.app.findUniqueOrThrow({ where: { slug: 'others-blocked' } })).status).toBe('blocked');
  });

  it('400 for a permanent flag that is neither true nor false', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'flagged-app' });
    for (const query of ['?permanent=yes', '?permanent=1', '?permanent=true&permanent=true']) {
      const res = await withdraw(dev, 'flagged-app', query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await h.db.app.findUniqueOrThrow({ where: { slug: 'flagged-app' } })).status).toBe('approved');
  });

  it('stops the app’s keys at once: revoked, refused (401), even one made in a race', async () => {
    const dev = h.user();
    await h.seedApp(dev, { slug: 'keyed-app' });
    const { key } = await h.createKey(dev, 'keyed-app');
    const byKey = () => request(h.app).get('/api/v1/me').set('Authorization', `Bearer ${key}`);
    expect((await byKey()).status).toBe(200);
    await withdraw(dev, 'keyed-app').expect(204);
    expect((await byKey()).status).toBe(401);
    const app = await h.db.app.findUniqueOrThrow({ where: { slug: 'keyed-app' } });
    const keys = await h.db.apiKey.findMany({ where: { appId: app.id } });
    expect(keys.map((k) => k.revokedAt?.getTime())).toEqual([clock]);
    // A key whose creation raced the withdrawal (not revoked) is refused all the same.
    await h.db.apiKey.updateMany({ where: { appId: app.id }, data: { revokedAt: null } });
    expect((await byKey()).status).toBe(401);
    // Managing keys of a withdrawn app: there is no such app any more.
    expect((await request(h.app).post('/api/v1/apps/keyed-app/keys').set(as(dev))).status).toBe(404);
    expect((await request(h.app).get('/api/v1/apps/keyed-app/keys').set(as(dev))).status).toBe(404);
  });

  it('a withdrawn app cannot be updated, reported, installed or appealed', async () => {
    const dev = h.user();
    const reader = h.user();
    await h.seedApp(dev, { slug: 'frozen-app' });
    await withdraw(dev, 'frozen-app').expect(204);
    const patch = await request(h.app).patch('/api/v1/apps/frozen-app').set(as(dev)).send({ name: 'Back' });
    expect(patch.status).toBe(404);
    const report = await request(h.app)
      .post('/api/v1/apps/frozen-app/report')
      .set(as(reader))
      .send({ reason: 'spam' });
    expect([report.status, report.body]).toEqual([404, { error: 'App not found' }]);
    expect(await h.db.appReport.count({ where: { app: { slug: 'frozen-app' } } })).toBe(0);
    const appeal = await request(h.app)
      .post('/api/v1/me/apps/frozen-app/appeal')
      .set(as(dev))
      .send({ text: 'please' });
    expect(appeal.status).toBe(409);
  });

  it('a blocked app may be withdrawn: its appeal closes, moderators can neither block nor restore it', async () => {
    const dev = h.user();
    const mod = h.user('mod', { moderator: true });
    const blockedApp = await h.seedApp(dev, { slug: 'blocked-then-withdrawn' });
    await request(h.app)
      .post('/api/v1/moderation/apps/blocked-then-withdrawn/block')
      .set(as(mod))
      .send({ reason: 'looks like phishing' })
      .expect(200);
    await request(h.app)
      .post('/api/v1/me/apps/blocked-then-withdrawn/appeal')
      .set(as(dev))
      .send({ text: 'it is not' })
      .expect(201);
    const queued = async () =>
      (await request(h.app).get('/api/v1/moderation/reports?limit=100').set(as(mod))).body.apps.map(
        (a: { slug: string }) => a.slug,
      );
    expect(await queued()).toContain('blocked-then-withdrawn');

    await withdraw(dev, 'blocked-then-withdrawn').expect(204);
    expect((await myApps(dev)).find((a) => a.slug === 'blocked-then-withdrawn')).toMatchObject({
      status: 'withdrawn',
      block: null,
    });
    const appeals = await h.db.appAppeal.findMany({ where: { appId: blockedApp.id } });
    expect(appeals.map((a) => a.closedAt?.getTime())).toEqual([clock]);
    expect(await queued()).not.toContain('blocked-then-withdrawn');
    const block = await request(h.app)
      .post('/api/v1/moderation/apps/blocked-then-withdrawn/block')
      .set(as(mod))
      .send({ reason: 'again' });
    expect([block.status, block.body]).toEqual([409, { error: WITHDRAWN_BY_AUTHOR }]);
    const restore = await request(h.app)
      .post('/api/v1/moderation/apps/blocked-then-withdrawn/restore')
      .set(as(mod))
      .send({ reason: 'fine' });
    expect(restore.status).toBe(409);
    // Moderators still read its history; the log keeps the block, the appeal and the withdrawal.
    const history = await request(h.app)
      .get('/api/v1/moderation/apps/blocked-then-withdrawn/reports')
      .set(as(mod));
    expect(history.body.app.status).toBe('withdrawn');
    expect((await auditOf(blockedApp.id)).map((e) => e.action)).toEqual([
      'app.blocked',
      'app.appealed',
      'app.withdrawn',
    ]);
  });

  it('reserves the slug: a new submission with it is 409 while withdrawn, after a permanent delete, until the days pass', async () => {
    const dev = h.user();
    const squatter = h.user();
    const body = { slug: 'reserved-name', name: 'Mine now', url: 'https://reserved.example.com' };
    await h.submit(dev, body).expect(201);
    await withdraw(dev, 'reserved-name').expect(204);
    const taken = await h.submit(squatter, body);
    expect([taken.status, taken.body]).toEqual([409, { error: 'Slug already taken' }]);
    clock += DAY;
    try {
      await withdraw(dev, 'reserved-name', '?permanent=true').expect(204);
      expect((await h.submit(squatter, body)).status).toBe(409);
      // The author too: the name is reserved, not theirs to reuse.
      expect((await h.submit(dev, body)).status).toBe(409);
      clock += RETENTION - 2 * DAY;
      expect((await h.submit(squatter, body)).status).toBe(409);
      clock += 2 * DAY;
      const created = await h.submit(squatter, body);
      expect(created.status).toBe(201);
    } finally {
      clock = Date.parse('2026-11-24T10:00:00.000Z');
    }
  });

  it('permanent=true deletes for good: the row, its reports, keys, installs and appeals; audit entries stay', async () => {
    const dev = h.user();
    const reader = h.user();
    const app = await h.seedApp(dev, { slug: 'gone-app' });
    await h.createKey(dev, 'gone-app');
    await request(h.app).put('/api/v1/me/installed/gone-app').set(as(reader)).expect(200);
    await request(h.app).post('/api/v1/apps/gone-app/report').set(as(reader)).send({ reason: 'spam' }).expect(200);
    await h.db.appAppeal.create({
      data: { appId: app.id, authorId: dev.id, blockAuditId: 0n, text: 'old appeal' },
    });
    await withdraw(dev, 'gone-app').expect(204);

    await withdraw(dev, 'gone-app', '?permanent=true').expect(204);
    expect(await h.db.app.count({ where: { id: app.id } })).toBe(0);
    for (const count of [
      h.db.apiKey.count({ where: { appId: app.id } }),
      h.db.install.count({ where: { appId: app.id } }),
      h.db.appReport.count({ where: { appId: app.id } }),
      h.db.appAppeal.count({ where: { appId: app.id } }),
    ])
      expect(await count).toBe(0);
    expect((await auditOf(app.id)).map((e) => [e.action, e.actor, e.reason])).toEqual([
      ['app.withdrawn', dev.id, ''],
      ['app.deleted', dev.id, DELETED_BY_AUTHOR],
    ]);
    expect((await myApps(dev)).map((a) => a.slug)).not.toContain('gone-app');
    expect((await withdraw(dev, 'gone-app', '?permanent=true')).status).toBe(404);
    expect((await withdraw(dev, 'gone-app')).status).toBe(404);
  });

  it('permanent=true on a live app withdraws and deletes it in one step', async () => {
    const dev = h.user();
    const app = await h.seedApp(dev, { slug: 'at-once-app', name: 'At Once Wombat' });
    expect((await listing({ q: 'wombat' })).meta.total).toBe(1);
    await withdraw(dev, 'at-once-app', '?permanent=true').expect(204);
    expect(await listing({ q: 'wombat' })).toMatchObject({ apps: [], meta: { total: 0 } });
    expect((await auditOf(app.id)).map((e) => e.action)).toEqual(['app.withdrawn', 'app.deleted']);
    expect(await h.db.slugReservation.findUnique({ where: { slug: 'at-once-app' } })).toMatchObject({
      reservedUntil: new Date(clock + RETENTION),
    });
  });
});

describe('the purge sweep', () => {
  const store = () => createWithdrawalStore(h.db);

  it('deletes a withdrawn app once its days are over, not before, with one system entry; idempotent', async () => {
    const dev = h.user();
    const app = await h.seedApp(dev, { slug: 'expiring-app' });
    await request(h.app).put('/api/v1/me/installed/expiring-app').set(as(h.user())).expect(200);
    const withdrawnAt = clock;
    await withdraw(dev, 'expiring-app').expect(204);

    const early = await purgeWithdrawnApps(store(), new Date(withdrawnAt + RETENTION - 1));
    expect(early.apps).toBe(0);
    expect(await h.db.app.count({ where: { id: app.id } })).toBe(1);

    const due = await purgeWithdrawnApps(store(), new Date(withdrawnAt + RETENTION));
    expect(due.apps).toBeGreaterThanOrEqual(1);
    expect(due.reservations).toBeGreaterThanOrEqual(1);
    expect(await h.db.app.count({ where: { id: app.id } })).toBe(0);
    expect(await h.db.install.count({ where: { appId: app.id } })).toBe(0);
    expect(await h.db.slugReservation.count({ where: { slug: 'expiring-app' } })).toBe(0);
    expect((await auditOf(app.id)).map((e) => [e.action, e.actor, e.reason])).toEqual([
      ['app.withdrawn', dev.id, ''],
      ['app.deleted', 'system', DELETED_AFTER_RETENTION],
    ]);
    expect(await purgeWithdrawnApps(store(), new Date(withdrawnAt + RETENTION))).toEqual({
      apps: 0,
      reservations: 0,
    });
    // The name is free again.
    clock = withdrawnAt + RETENTION;
    try {
      await h.submit(h.user(), { slug: 'expiring-app', name: 'New', url: 'https://new.example.com' }).expect(201);
    } finally {
      clock = withdrawnAt;
    }
  });

  it('deletes each due app once when sweeps run at once, in batches', async () => {
    const dev = h.user();
    const at = clock - 400 * DAY;
    const apps = [];
    for (let i = 0; i < PURGE_BATCH + 5; i++)
      apps.push(
        await h.seedApp(dev, {
          slug: `batch-${i}`,
          status: 'withdrawn',
          withdrawnAt: new Date(at),
          purgeAt: new Date(at + RETENTION),
        }),
      );
    const outcomes = await Promise.all([0, 1, 2].map(() => purgeWithdrawnApps(store(), now())));
    expect(outcomes.reduce((sum, o) => sum + o.apps, 0)).toBe(PURGE_BATCH + 5);
    expect(await h.db.app.count({ where: { authorId: dev.id } })).toBe(0);
    const entries = await h.db.auditLog.findMany({
      where: { action: 'app.deleted', targetId: { in: apps.map((a) => a.id) } },
    });
    expect(entries).toHaveLength(PURGE_BATCH + 5);
  });

  it('counts what it deletes, says when it is behind, and counts its failures', async () => {
    const registry = new Registry();
    const logger = createLogger('purge-test', 'silent');
    const dev = h.user();
    const at = clock - 100 * DAY;
    await h.seedApp(dev, {
      slug: 'overdue-app',
      status: 'withdrawn',
      withdrawnAt: new Date(at),
      purgeAt: new Date(at + RETENTION),
    });
    const purge = startWithdrawnAppPurge({ withdrawals: store(), logger, registry, now });
    try {
      const overdue = async () =>
        (await registry.getSingleMetric('app_store_apps_purge_overdue')!.get()).values[0]!.value;
      expect(await overdue()).toBeGreaterThanOrEqual(1);
      await purge.sweep();
      const purged = await registry.getSingleMetric('app_store_apps_purged_total')!.get();
      expect(purged.values[0]!.value).toBeGreaterThanOrEqual(1);
      expect(await overdue()).toBe(0);
      expect(await h.db.app.count({ where: { slug: 'overdue-app' } })).toBe(0);
    } finally {
      await purge.stop();
    }

    // PostgreSQL unreachable: the sweep fails, is counted, and the gauge says so.
    const deadRegistry = new Registry();
    const dead = new PrismaClient({
      adapter: createPgAdapter({ ...h.database.target, port: 1 }, { max: 1 }),
    });
    const failing = startWithdrawnAppPurge({
      withdrawals: createWithdrawalStore(dead),
      logger,
      registry: deadRegistry,
      now,
    });
    try {
      await failing.sweep();
      const failures = await deadRegistry.getSingleMetric('app_store_purge_sweep_failures_total')!.get();
      expect(failures.values[0]!.value).toBe(1);
      const gauge = await deadRegistry.getSingleMetric('app_store_apps_purge_overdue')!.get();
      expect(gauge.values[0]!.value).toBe(-1);
    } finally {
      await failing.stop();
      await dead.$disconnect();
    }
  });
});

describe('withdrawing all of an author’s apps (account deletion)', () => {
  it('withdraws every app of the author in any status, or deletes them for good; nobody else’s', async () => {
    const dev = h.user();
    const bystander = h.user();
    await h.seedApp(dev, { slug: 'all-listed', name: 'All Numbat' });
    await h.seedApp(dev, { slug: 'all-blocked', status: 'blocked' });
    await h.seedApp(dev, { slug: 'all-withdrawn' });
    await withdraw(dev, 'all-withdrawn').expect(204);
    await h.seedApp(bystander, { slug: 'bystander-app', name: 'Bystander Numbat' });
    const deps = {
      withdrawals: createWithdrawalStore(h.db),
      listing: createListing({
        reader: createListingReader(h.listingPool),
        totals: createListingTotals(h.redis, h.redisPrefix, createLogger('t', 'silent'), 10_000),
        pageCacheMs: 0,
      }),
    };
    expect((await listing({ q: 'numbat' })).meta.total).toBe(2);

    expect(await withdrawAuthorApps(deps, dev.id, { permanent: false, now: now() })).toBe(3);
    expect((await myApps(dev)).map((a) => [a.slug, a.status]).sort()).toEqual([
      ['all-blocked', 'withdrawn'],
      ['all-listed', 'withdrawn'],
      ['all-withdrawn', 'withdrawn'],
    ]);
    // The totals the app's own listing reads were cleared by the action.
    expect((await listing({ q: 'numbat' })).meta.total).toBe(1);

    expect(await withdrawAuthorApps(deps, dev.id, { permanent: true, now: now() })).toBe(3);
    expect(await h.db.app.count({ where: { authorId: dev.id } })).toBe(0);
    expect(await withdrawAuthorApps(deps, dev.id, { permanent: true, now: now() })).toBe(0);
    expect((await request(h.app).get('/api/v1/apps/bystander-app')).status).toBe(200);
  });
});

describe('the listing caches of the process', () => {
  let cached: Harness;
  beforeAll(async () => {
    cached = await startHarness({ listingCacheMs: 60_000, now });
  });
  afterAll(() => cached.close());

  it('a page cached for a minute drops the withdrawn app at once', async () => {
    const dev = cached.user();
    await cached.seedApp(dev, { slug: 'cached-app', name: 'Cached Bilby' });
    const page = async () =>
      AppListResponse.parse((await request(cached.app).get('/api/v1/apps').query({ q: 'bilby' })).body);
    expect((await page()).meta.total).toBe(1);
    await request(cached.app).delete('/api/v1/apps/cached-app').set(as(dev)).expect(204);
    expect(await page()).toMatchObject({ apps: [], meta: { total: 0 } });
  });
});

describe('the limit', () => {
  it('429 past 60 a minute per user, counted with the other authenticated operations', async () => {
    const limited = await startHarness({ now });
    try {
      const dev = limited.user();
      for (let i = 0; i < 60; i++)
        await request(limited.app).get('/api/v1/me').set(as(dev)).expect(200);
      const res = await request(limited.app).delete('/api/v1/apps/anything').set(as(dev));
      expect([res.status, res.body]).toEqual([429, { error: 'Too many requests' }]);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
