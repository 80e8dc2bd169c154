// DELETE /internal/users/{id} (auth's account deletion job → sites) on the real app,
// PostgreSQL and Redis: the user's bookmarks, boosts, submissions and idempotency keys go,
// the sites they submitted or claimed stay with every public figure but no longer name them,
// the moderation entries they wrote keep the action under the pseudonym; afterwards no
// column of any table of the schema holds their id, e-mail or username. Idempotent, all or
// nothing, guarded by the internal token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SitesExportPart, internalUserExportPath, internalUserPath, type Site } from '@svc/types';
import { createUserDeletionStore } from '../src/store/user-deletion-store.js';
import { INTERNAL_TOKEN, nextIp, startHarness, type Harness } from './api-harness.js';

const ANN = {
  id: 'annDeletes0123456789',
  email: 'ann.deletes@example.com',
  username: 'ann_deletes',
};
const BOB = { id: 'bobStays01234567890a', email: 'bob.stays@example.com', username: 'bob_stays' };
const PSEUDONYM = 'deleted-user-0123456789abcdef';

let h: Harness;
let ann: string;
let bob: string;
let otherModerator: string;
beforeAll(async () => {
  h = await startHarness();
  // Ann is a moderator too, so entries she wrote are in the audit log.
  ann = h.sessionCookie({ ...ANN, isModerator: true });
  bob = h.sessionCookie(BOB);
  otherModerator = h.sessionCookie({ id: 'modOther0123456789ab', isModerator: true });
});
afterAll(async () => {
  await h?.close();
});

const as = (cookie: string | null, r: request.Test) => {
  r.set('X-Forwarded-For', nextIp());
  return cookie ? r.set('Cookie', cookie) : r;
};
async function submit(path: string, cookie: string | null, key?: string): Promise<Site> {
  const r = as(cookie, request(h.app).post('/api/sites'));
  if (key) r.set('Idempotency-Key', key);
  const res = await r.send({ url: `${h.website.origin}${path}` });
  expect([200, 201]).toContain(res.status);
  return res.body.site as Site;
}
async function ok(r: request.Test, status = 200): Promise<void> {
  const res = await r;
  expect([res.status, res.body]).toEqual([status, expect.anything()]);
}
const deleteUser = (
  userId: string,
  body: unknown = { pseudonym: PSEUDONYM },
  token: string | null = INTERNAL_TOKEN,
) => {
  const r = request(h.app).delete(internalUserPath(userId));
  if (token !== null) r.set('X-Internal-Token', token);
  return r.send(body as object);
};
const exportOf = async (userId: string) => {
  const res = await request(h.app)
    .get(internalUserExportPath(userId))
    .set('X-Internal-Token', INTERNAL_TOKEN);
  expect(res.status).toBe(200);
  return SitesExportPart.parse(res.body);
};
const publicSite = async (id: string) => (await request(h.app).get(`/api/sites/${id}`)).body;

/** `table.column` of every column in the service's schema whose text holds `needle`. */
async function columnsHolding(needle: string): Promise<string[]> {
  const columns = await h.listingPool.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = $1 ORDER BY table_name, column_name`,
    [h.schema],
  );
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns.rows) {
    const q = `SELECT count(*)::int AS n FROM "${h.schema}"."${table}"
               WHERE strpos("${column}"::text, $1) > 0`;
    const { rows } = await h.listingPool.query<{ n: number }>(q, [needle]);
    if (rows[0]!.n > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** Row counts of every table of the schema (what a no-op deletion must leave alone). */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = await h.listingPool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [h.schema],
  );
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables.rows) {
    const { rows } = await h.listingPool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${h.schema}"."${table}"`,
    );
    counts[table] = rows[0]!.n;
  }
  return counts;
}

const auditRows = () =>
  h.db.auditLog.findMany({
    orderBy: { id: 'asc' },
    select: { actor: true, action: true, targetId: true, reason: true },
  });

describe('DELETE /internal/users/{id}', () => {
  let own: Site;
  let seconded: Site;
  let bobs: Site;
  let bobExport: SitesExportPart;
  let publicBefore: unknown[];
  let auditBefore: Awaited<ReturnType<typeof auditRows>>;

  beforeAll(async () => {
    // Ann: first submitter (with an Idempotency-Key) and claimant of `own`, second submitter
    // and bookmarker of Bob's `seconded`, booster of Bob's `bobs`, which she hides and
    // restores as a moderator. Bob and a visitor act on her site too.
    own = await submit('/deletion-own', ann, 'ann-key');
    seconded = await submit('/deletion-seconded', bob, 'bob-key');
    await submit('/deletion-seconded', ann);
    bobs = await submit('/deletion-bobs', bob);
    await ok(as(ann, request(h.app).post('/api/bookmarks')).send({ site_id: seconded.id }), 201);
    await ok(as(ann, request(h.app).post('/api/bookmarks')).send({ site_id: own.id }), 201);
    await ok(as(ann, request(h.app).delete(`/api/bookmarks/${own.id}`)), 204);
    await ok(as(bob, request(h.app).post('/api/bookmarks')).send({ site_id: own.id }), 201);
    await ok(as(ann, request(h.app).post(`/api/sites/${bobs.id}/boost`)));
    await ok(as(ann, request(h.app).post(`/api/sites/${own.id}/boost`)));
    await ok(as(bob, request(h.app).post(`/api/sites/${own.id}/boost`)));
    await ok(as(null, request(h.app).post(`/api/sites/${own.id}/boost`)));
    await ok(as(null, request(h.app).post(`/api/clicks/${own.id}`)));
    h.website.setHandler((_req, res) =>
      res.end(`<html><head><meta name="svc-verify" content="${own.id}"></head></html>`),
    );
    await ok(as(ann, request(h.app).post(`/api/sites/${own.id}/claim`)));
    await ok(
      as(ann, request(h.app).post(`/api/moderation/sites/${bobs.id}/hide`)).send({
        reason: 'checking',
      }),
    );
    await ok(as(ann, request(h.app).post(`/api/moderation/sites/${bobs.id}/restore`)));
    await ok(
      as(otherModerator, request(h.app).post(`/api/moderation/sites/${own.id}/hide`)).send({
        reason: 'spam',
      }),
    );
    await ok(as(otherModerator, request(h.app).post(`/api/moderation/sites/${own.id}/restore`)));

    bobExport = await exportOf(BOB.id);
    publicBefore = await Promise.all([own, seconded, bobs].map((s) => publicSite(s.id)));
    auditBefore = await auditRows();
  });

  it('refuses callers without the right token (403) and bad pseudonyms (400), deleting nothing', async () => {
    for (const token of [null, '', 'wrong', `${INTERNAL_TOKEN}x`]) {
      const res = await deleteUser(ANN.id, { pseudonym: PSEUDONYM }, token);
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    }
    const withSession = await request(h.app)
      .delete(internalUserPath(ANN.id))
      .set('Cookie', ann)
      .send({ pseudonym: PSEUDONYM });
    expect(withSession.status).toBe(403);
    for (const body of [
      {},
      { pseudonym: '' },
      { pseudonym: 'deleted-user-0123456789ABCDEF' },
      { pseudonym: 'deleted-user-0123' },
      { pseudonym: `${PSEUDONYM}0` },
      { pseudonym: ANN.username },
    ]) {
      const res = await deleteUser(ANN.id, body);
      expect([res.status, res.body]).toEqual([
        400,
        { error: expect.stringContaining('pseudonym') },
      ]);
    }
    expect((await deleteUser('x'.repeat(129))).status).toBe(404);
    // Everything of Ann's is still there; the scan finds her id where sites keeps it.
    expect(await columnsHolding(ANN.id)).toEqual([
      'audit_log.actor',
      'bookmarks.user_id',
      'boosts.user_id',
      'idempotency_keys.scope',
      'site_submissions.user_id',
      'sites.owner_id',
      'sites.submitted_by',
    ]);
  });

  it("removes every trace of the user's id, e-mail and username from every table", async () => {
    expect((await deleteUser(ANN.id)).status).toBe(204);
    for (const needle of [ANN.id, ANN.email, ANN.username])
      expect([needle, await columnsHolding(needle)]).toEqual([needle, []]);
  });

  it('keeps the sites, their public figures and claim, and other people’s rows', async () => {
    // The same public site objects: boost, submit and click counts and hot score unchanged.
    expect(await Promise.all([own, seconded, bobs].map((s) => publicSite(s.id)))).toEqual(
      publicBefore,
    );
    const row = await h.db.site.findUniqueOrThrow({ where: { id: own.id } });
    expect([row.boostCount, row.submitCount, row.clickCount]).toEqual([3, 1, 1]);
    expect([row.isClaimed, row.claimedAt !== null, row.ownerId, row.submittedBy]).toEqual([
      true,
      true,
      null,
      null,
    ]);
    // Bob's submissions, bookmark, boost and key; the visitor's boost.
    expect(await exportOf(BOB.id)).toEqual(bobExport);
    expect(await h.db.boost.count({ where: { siteId: own.id, userId: null } })).toBe(1);
    expect(await h.db.siteSubmission.count({ where: { siteId: seconded.id } })).toBe(1);
  });

  it('keeps every moderation entry, hers under the pseudonym', async () => {
    const pseudonymised = (actor: string) => (actor === ANN.id ? PSEUDONYM : actor);
    expect(auditBefore.filter((e) => e.actor === ANN.id)).toHaveLength(2);
    expect(await auditRows()).toEqual(
      auditBefore.map((e) => ({ ...e, actor: pseudonymised(e.actor) })),
    );
  });

  it('leaves her an empty data export', async () => {
    expect(await exportOf(ANN.id)).toEqual({
      data: { submissions: [], claims: [], bookmarks: [], boosts: [], idempotency_keys: [] },
      moderation: { by_you: [], about_you: [] },
    });
  });

  it('answers 204 again and changes nothing (auth repeats the call)', async () => {
    const counts = await rowCounts();
    const audit = await auditRows();
    expect((await deleteUser(ANN.id)).status).toBe(204);
    expect(await rowCounts()).toEqual(counts);
    expect(await auditRows()).toEqual(audit);
    expect(await columnsHolding(ANN.id)).toEqual([]);
  });

  it('answers 204 for a user sites never knew, changing nothing', async () => {
    const counts = await rowCounts();
    expect(
      (await deleteUser('neverSeen0123456789a', { pseudonym: 'deleted-user-fedcba9876543210' }))
        .status,
    ).toBe(204);
    expect(await rowCounts()).toEqual(counts);
  });

  it('leaves in Redis only her bookmark rate-limit bucket, which expires within its minute', async () => {
    const keys = (await h.redis.keys(`${h.redisPrefix}*`)).filter((k) => k.includes(ANN.id));
    // Her two bookmark writes made the bucket (a guard that the scan looks where keys are).
    expect(keys).toEqual([expect.stringContaining('sites-bookmark-write')]);
    for (const key of keys) {
      const ttl = await h.redis.pttl(key);
      expect([key, ttl > 0 && ttl <= 60_000]).toEqual([key, true]);
    }
  });
});

describe('the deletion, all or nothing', () => {
  it('rolls back every step when one fails', async () => {
    // The audit step refuses an id shorter than 8 characters (the kit's guard against
    // replacing unrelated text; the route answers 404 for one before it gets there), after
    // the bookmarks and boosts were deleted in the same transaction: they must come back.
    const short = h.sessionCookie({ id: 'short1' });
    const site = await submit('/deletion-rollback', short);
    await ok(as(short, request(h.app).post('/api/bookmarks')).send({ site_id: site.id }), 201);
    await ok(as(short, request(h.app).post(`/api/sites/${site.id}/boost`)));
    expect((await deleteUser('short1')).status).toBe(404);
    await expect(
      createUserDeletionStore(h.db).deleteUser('short1', 'deleted-user-00000000000000aa'),
    ).rejects.toThrow(/malformed user id or pseudonym/);
    expect(await columnsHolding('short1')).toEqual([
      'bookmarks.user_id',
      'boosts.user_id',
      'site_submissions.user_id',
      'sites.submitted_by',
    ]);
  });
});
