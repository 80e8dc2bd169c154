// DELETE /internal/users/{id} (auth's account deletion → app-store), on the real app,
// PostgreSQL and Redis: after it no column of any table of the schema holds the user's id,
// e-mail or username; their apps are deleted for good with what hangs on them, their slugs
// stay reserved, their reports and the audit entries naming them stay with the pseudonym,
// other people's data stays; a repeated, concurrent or unknown-user call is a 204 that
// changes nothing; the token guard and the body check.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AppListResponse, internalUserExportPath, internalUserPath } from '@svc/types';
import { createUserDeletionStore } from '../src/store/user-deletion-store.js';
import { INTERNAL_TOKEN, startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let schema: string;
beforeAll(async () => {
  // The relay never runs on its own: a pending notify-email job stays in job_outbox.
  h = await startHarness({ rateLimitScale: 100, relayOutbox: false });
  schema = h.database.target.schema;
});
afterAll(() => h.close());

const as = (u: TestUser, r: request.Test) => r.set('Cookie', u.cookie);
const newPseudonym = () => `deleted-user-${randomBytes(8).toString('hex')}`;
const deleteUser = (userId: string, body: unknown, token: string | null = INTERNAL_TOKEN) => {
  const r = request(h.app)
    .delete(internalUserPath(userId))
    .send(body as object);
  return token === null ? r : r.set('X-Internal-Token', token);
};
const ok = async (r: request.Test, status = 200) => {
  const res = await r;
  expect([res.status, res.body]).toEqual([status, expect.anything()]);
  return res;
};

const listedSlugs = async () =>
  AppListResponse.parse(
    (await request(h.app).get('/api/v1/apps').query({ q: 'wombat' })).body,
  ).apps.map((a) => a.slug);

/** Every `table.column` of the schema (text, json and array columns) whose text holds `needle`. */
async function columnsHolding(needle: string): Promise<string[]> {
  const columns = await h.db.$queryRaw<Array<{ table_name: string; column_name: string }>>`
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = ${schema} AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
    ORDER BY c.table_name, c.column_name`;
  expect(columns.length).toBeGreaterThan(20);
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const [row] = await h.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${schema}"."${table}" WHERE strpos("${column}"::text, $1) > 0`,
      needle,
    );
    if (row!.n > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** Row counts of every table, to show a call changed nothing. */
async function tableCounts(): Promise<Record<string, number>> {
  const tables = [
    'apps',
    'app_reports',
    'api_keys',
    'installs',
    'developers',
    'app_appeals',
    'slug_reservations',
    'audit_log',
    'job_outbox',
    'system_message_outbox',
  ];
  const counts: Record<string, number> = {};
  for (const t of tables) {
    const [row] = await h.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "${schema}"."${t}"`,
    );
    counts[t] = row!.n;
  }
  return counts;
}

describe('DELETE /internal/users/{id}', () => {
  it("leaves no trace of the user's id, e-mail or username; keeps what must stay", async () => {
    const ann = h.user('ann', { moderator: true });
    const bob = h.user('bob');
    const carl = h.user('carl');
    const mod = h.user('mod', { moderator: true });
    // Ann's apps: one listed with a key, installed and reported by Bob, one blocked and appealed.
    await ok(
      h.submit(ann, { slug: 'ann-app', name: 'Ann Wombat', url: 'https://ann.example' }),
      201,
    );
    await ok(
      h.submit(ann, { slug: 'ann-blocked', name: 'Ann Blocked', url: 'https://annb.example' }),
      201,
    );
    const annKey = await h.createKey(ann, 'ann-app');
    await ok(as(bob, request(h.app).put('/api/v1/me/installed/ann-app')));
    await ok(as(bob, request(h.app).post('/api/v1/apps/ann-app/report')).send({ reason: 'spam' }));
    await ok(
      as(mod, request(h.app).post('/api/v1/moderation/apps/ann-blocked/block')).send({
        reason: 'phishing',
      }),
    );
    await ok(
      as(ann, request(h.app).post('/api/v1/me/apps/ann-blocked/appeal')).send({
        text: 'a mistake, please look again',
      }),
      201,
    );
    // Others' apps: Ann installs, uninstalls, reports, and blocks one as a moderator.
    const bobApp = await h.seedApp(bob, { slug: 'bob-app', name: 'Bob Wombat' });
    await h.seedApp(carl, { slug: 'carl-app', name: 'Carl Wombat' });
    const bobKey = await h.createKey(bob, 'bob-app');
    await ok(as(ann, request(h.app).put('/api/v1/me/installed/bob-app')));
    await ok(as(ann, request(h.app).put('/api/v1/me/installed/carl-app')));
    await ok(as(ann, request(h.app).delete('/api/v1/me/installed/carl-app')), 204);
    await ok(
      as(ann, request(h.app).post('/api/v1/apps/bob-app/report')).send({
        reason: 'malware',
        detail: 'asks for a seed phrase',
      }),
    );
    await ok(
      as(ann, request(h.app).post('/api/v1/moderation/apps/carl-app/block')).send({
        reason: 'copies another app',
      }),
    );
    // A key naming Ann on someone else's app (the routes never make one): it goes too.
    await h.db.apiKey.create({
      data: {
        id: `key_${randomBytes(6).toString('hex')}`,
        appId: bobApp.id,
        authorId: ann.id,
        keyHash: createHash('sha256').update(randomBytes(16)).digest('hex'),
        prefix: 'svc_live_xyz',
      },
    });
    const annApps = await h.db.app.findMany({ where: { authorId: ann.id }, select: { id: true } });
    expect(await listedSlugs()).toContain('ann-app');

    // The scan finds Ann everywhere app-store keeps her, so its silence afterwards means something.
    expect(await columnsHolding(ann.id)).toEqual([
      'api_keys.author_id',
      'app_appeals.author_id',
      'app_reports.user_id',
      'apps.author_id',
      'audit_log.actor',
      'developers.user_id',
      'installs.user_id',
      'job_outbox.payload',
    ]);
    expect(await columnsHolding(ann.email)).toEqual(['developers.email']);
    // (the harness's e-mail is made of the username)
    expect(await columnsHolding(ann.username)).toEqual([
      'apps.author_name',
      'developers.email',
      'developers.username',
    ]);

    const pseudonym = newPseudonym();
    const res = await deleteUser(ann.id, { pseudonym });
    expect([res.status, res.text]).toEqual([204, '']);

    for (const needle of [ann.id, ann.email, ann.username])
      expect(await columnsHolding(needle)).toEqual([]);

    // Her apps are gone for good with their keys, installs, reports and appeals; the slugs stay taken.
    expect(await h.db.app.count({ where: { id: { in: annApps.map((a) => a.id) } } })).toBe(0);
    expect(await h.db.appReport.count({ where: { appId: { in: annApps.map((a) => a.id) } } })).toBe(
      0,
    );
    expect(await h.db.install.count({ where: { userId: bob.id } })).toBe(0);
    expect((await request(h.app).get('/api/v1/apps/ann-app')).status).toBe(404);
    expect(await listedSlugs()).not.toContain('ann-app');
    expect(
      (await request(h.app).get('/api/v1/me').set('Authorization', `Bearer ${annKey.key}`)).status,
    ).toBe(401);
    expect(
      (await h.submit(bob, { slug: 'ann-app', name: 'Taken', url: 'https://t.example' })).status,
    ).toBe(409);
    expect(
      (await h.db.slugReservation.findMany({ where: { slug: { in: ['ann-app', 'ann-blocked'] } } }))
        .length,
    ).toBe(2);

    // Others' apps, keys and figures stay: Ann's install still counts as a download.
    expect(
      await h.db.app.findUnique({
        where: { slug: 'bob-app' },
        select: { downloads: true, status: true },
      }),
    ).toEqual({ downloads: 1, status: 'approved' });
    expect(
      (await request(h.app).get('/api/v1/me').set('Authorization', `Bearer ${bobKey.key}`)).status,
    ).toBe(200);
    expect((await h.db.app.findUnique({ where: { slug: 'carl-app' } }))!.status).toBe('blocked');
    // Her report stays for moderation, under the pseudonym, with the network hash.
    expect(
      await h.db.appReport.findMany({
        where: { appId: bobApp.id },
        select: {
          userId: true,
          reason: true,
          detail: true,
          resolvedAt: true,
          reporterNetwork: true,
        },
      }),
    ).toEqual([
      {
        userId: pseudonym,
        reason: 'malware',
        detail: 'asks for a seed phrase',
        resolvedAt: null,
        reporterNetwork: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    // The audit entries she wrote stay, by the pseudonym: her appeal, the deletion's own
    // withdrawals and deletions, her block as a moderator.
    const byHer = await h.db.auditLog.findMany({
      where: { actor: pseudonym },
      orderBy: { id: 'asc' },
    });
    expect(byHer.map((e) => e.action).sort()).toEqual([
      'app.appealed',
      'app.blocked',
      'app.deleted',
      'app.deleted',
      'app.withdrawn',
      'app.withdrawn',
    ]);
    expect(await h.db.auditLog.count({ where: { actor: mod.id, action: 'app.blocked' } })).toBe(1);
    // The notice to Carl about the block waits for the relay still; Ann's went with her.
    const jobs = await h.db.jobOutbox.findMany();
    expect(jobs.map((j) => (j.payload as { user_id: string }).user_id)).toEqual([carl.id]);

    // Her export is now empty.
    const exported = await request(h.app)
      .get(internalUserExportPath(ann.id))
      .set('X-Internal-Token', INTERNAL_TOKEN);
    expect([exported.status, exported.body]).toEqual([
      200,
      {
        data: { developer: null, apps: [], api_keys: [], installs: [], reports: [], appeals: [] },
        moderation: { by_you: [], about_you: [] },
      },
    ]);

    // Again (auth's job retries until it sees a 204): 204, nothing changes.
    const before = await tableCounts();
    expect((await deleteUser(ann.id, { pseudonym })).status).toBe(204);
    expect(await tableCounts()).toEqual(before);
  });

  it('two calls at once delete once: 204 each, one deletion entry per app', async () => {
    const dan = h.user('dan');
    for (const slug of ['dan-one', 'dan-two', 'dan-three'])
      await ok(h.submit(dan, { slug, name: `Dan ${slug}`, url: 'https://dan.example' }), 201);
    const pseudonym = newPseudonym();
    const answers = await Promise.all([
      deleteUser(dan.id, { pseudonym }),
      deleteUser(dan.id, { pseudonym }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([204, 204]);
    expect(await h.db.auditLog.count({ where: { actor: pseudonym, action: 'app.deleted' } })).toBe(
      3,
    );
    expect(
      await h.db.auditLog.count({ where: { actor: pseudonym, action: 'app.withdrawn' } }),
    ).toBe(3);
    expect(await columnsHolding(dan.id)).toEqual([]);
  });

  it('changes nothing when a step fails: all of it is one transaction', async () => {
    // The audit function refuses an id shorter than 8 characters, after the apps, installs
    // and developer rows were already deleted in the transaction (the route answers 404
    // for such an id before any step runs, so the store is called directly).
    const short = { ...h.user('short'), id: 'u-short' };
    await h.seedApp(short, { slug: 'short-app', name: 'Short Wombat' });
    await h.db.install.create({
      data: {
        userId: short.id,
        appId: (await h.db.app.findUniqueOrThrow({ where: { slug: 'short-app' } })).id,
      },
    });
    const before = await tableCounts();
    expect((await deleteUser(short.id, { pseudonym: newPseudonym() })).status).toBe(404);
    await expect(
      createUserDeletionStore(h.db).deleteUser(short.id, newPseudonym(), new Date()),
    ).rejects.toThrow(/malformed user id or pseudonym/);
    expect(await tableCounts()).toEqual(before);
    expect(await listedSlugs()).toContain('short-app');
  });

  it('answers 204 for a user app-store never knew, and changes nothing', async () => {
    const before = await tableCounts();
    const res = await deleteUser(`never${randomBytes(8).toString('hex')}`, {
      pseudonym: newPseudonym(),
    });
    expect([res.status, res.text]).toEqual([204, '']);
    expect(await tableCounts()).toEqual(before);
  });

  it('refuses callers without the right token with 403 (a session included), a bad pseudonym with 400', async () => {
    const eve = h.user('eve');
    await ok(h.submit(eve, { slug: 'eve-app', name: 'Eve App', url: 'https://eve.example' }), 201);
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await deleteUser(eve.id, { pseudonym: newPseudonym() }, token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    const bySession = await as(eve, request(h.app).delete(internalUserPath(eve.id))).send({
      pseudonym: newPseudonym(),
    });
    expect(bySession.status).toBe(403);
    for (const body of [
      {},
      { pseudonym: 'deleted-user-XYZ' },
      { pseudonym: eve.id },
      { pseudonym: `${newPseudonym()}0` },
    ]) {
      const res = await deleteUser(eve.id, body);
      expect(res.status).toBe(400);
    }
    expect((await deleteUser('x'.repeat(129), { pseudonym: newPseudonym() })).status).toBe(404);
    // Nothing of Eve was touched.
    expect(await h.db.app.count({ where: { authorId: eve.id } })).toBe(1);
    expect(await h.db.developer.count({ where: { userId: eve.id } })).toBe(1);
  });
});
