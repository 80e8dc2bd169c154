// The moderator role (docs/decisions/016-moderator-role.md) on real PostgreSQL and Redis: MODERATOR_EMAILS,
// grants and revokes through the API, the `mod` claim and the override open sessions follow.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { formerModeratorRoleKey, moderatorRoleKey, setModeratorRole } from '@svc/service-kit';
import { loadAuthConfig } from '../src/config.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ moderatorEmails: ['boss@example.com', 'owner@example.com'] });
});
afterAll(() => h.close());

const claimsOf = (cookie: string) => jwt.decode(cookie.replace(/^sn_token=/, '')) as Record<string, unknown>;
const me = (cookie: string) => request(h.app).get('/api/auth/me').set('Cookie', cookie);
const list = (cookie?: string) => {
  const r = request(h.app).get('/api/auth/moderators');
  return cookie ? r.set('Cookie', cookie) : r;
};
const grant = (email: string, cookie?: string) => {
  const r = request(h.app).put(`/api/auth/moderators/${encodeURIComponent(email)}`);
  return cookie ? r.set('Cookie', cookie) : r;
};
const revoke = (email: string, cookie?: string) => {
  const r = request(h.app).delete(`/api/auth/moderators/${encodeURIComponent(email)}`);
  return cookie ? r.set('Cookie', cookie) : r;
};

describe('MODERATOR_EMAILS', () => {
  it('is comma-separated, trimmed, lower-cased, empty by default; a non-email stops the start', () => {
    const base = { NODE_ENV: 'test' };
    expect(loadAuthConfig(base).MODERATOR_EMAILS).toEqual([]);
    expect(
      loadAuthConfig({ ...base, MODERATOR_EMAILS: ' Boss@Example.com , ,ann@example.com,boss@example.com ' })
        .MODERATOR_EMAILS,
    ).toEqual(['boss@example.com', 'ann@example.com']);
    expect(() => loadAuthConfig({ ...base, MODERATOR_EMAILS: 'boss@example.com, not-an-email' })).toThrow();
  });
});

describe('moderators', () => {
  let boss: Awaited<ReturnType<Harness['login']>>;
  let normal: Awaited<ReturnType<Harness['login']>>;
  beforeAll(async () => {
    boss = await h.login('boss@example.com');
    normal = await h.login('normal@example.com');
  });

  it('a listed email logs in as a moderator (claim and /me); a normal user does not', async () => {
    expect(claimsOf(boss.cookie).mod).toBe(true);
    expect((await me(boss.cookie)).body).toEqual({ user: boss.user, is_moderator: true });
    expect(claimsOf(normal.cookie)).not.toHaveProperty('mod');
    expect((await me(normal.cookie)).body).toEqual({ user: normal.user, is_moderator: false });
  });

  it('401 without a session, 403 for a non-moderator on every moderator endpoint', async () => {
    for (const res of [await list(), await grant('normal@example.com'), await revoke('normal@example.com')]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Authentication required' });
    }
    for (const res of [
      await list(normal.cookie),
      await grant('normal@example.com', normal.cookie),
      await revoke('boss@example.com', normal.cookie),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'Moderators only' });
    }
  });

  it('404 for an unknown user or a path that is no email; 409 for a listed moderator', async () => {
    for (const res of [
      await grant('nobody@example.com', boss.cookie),
      await revoke('nobody@example.com', boss.cookie),
      await grant('not-an-email', boss.cookie),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'User not found' });
    }
    const refused = await revoke('BOSS@example.com', boss.cookie);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/MODERATOR_EMAILS/);
    expect((await me(boss.cookie)).body.is_moderator).toBe(true);
  });

  it('a grant makes the open session a moderator at once, and the next session carries the claim', async () => {
    const grantee = await h.login('grantee@example.com');
    const res = await grant('Grantee@Example.com', boss.cookie);
    expect(res.status).toBe(200);
    expect(res.body.moderator).toEqual({
      email: 'grantee@example.com',
      user_id: grantee.user.id,
      username: grantee.user.username,
      source: 'grant',
      granted_by: boss.user.id,
      granted_at: expect.any(String),
    });
    // Idempotent: the first grant's author and date stay.
    const again = await grant('grantee@example.com', boss.cookie);
    expect(again.body).toEqual(res.body);

    expect((await me(grantee.cookie)).body.is_moderator).toBe(true);
    expect((await list(grantee.cookie)).status).toBe(200);
    const next = await h.login('grantee@example.com');
    expect(claimsOf(next.cookie).mod).toBe(true);

    // A granted moderator grants in turn.
    expect((await grant('normal@example.com', next.cookie)).status).toBe(200);
    expect((await me(normal.cookie)).body.is_moderator).toBe(true);
  });

  it('lists configured moderators first (also before their first login), then grants', async () => {
    const res = await list(boss.cookie);
    expect(res.status).toBe(200);
    expect(res.body.moderators.map((m: { email: string; source: string }) => [m.email, m.source])).toEqual([
      ['boss@example.com', 'configuration'],
      ['owner@example.com', 'configuration'],
      ['grantee@example.com', 'grant'],
      ['normal@example.com', 'grant'],
    ]);
    expect(res.body.moderators[0]).toMatchObject({ user_id: boss.user.id, granted_by: null, granted_at: null });
    expect(res.body.moderators[1]).toMatchObject({ user_id: null, username: null });
    // A grant to a listed moderator answers their configuration entry and stores nothing.
    const configured = await grant('boss@example.com', boss.cookie);
    expect(configured.status).toBe(200);
    expect(configured.body.moderator).toMatchObject({ source: 'configuration', user_id: boss.user.id });
  });

  it('a revoke takes the role from open sessions at once (still logged in) and from new ones', async () => {
    const target = await h.login('revoked@example.com');
    await grant('revoked@example.com', boss.cookie).expect(200);
    const modSession = await h.login('revoked@example.com');
    expect(claimsOf(modSession.cookie).mod).toBe(true);

    const res = await revoke('revoked@example.com', boss.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    for (const cookie of [target.cookie, modSession.cookie]) {
      const answer = await me(cookie);
      expect(answer.status).toBe(200);
      expect(answer.body.is_moderator).toBe(false);
      expect((await list(cookie)).status).toBe(403);
    }
    const after = await h.login('revoked@example.com');
    expect(claimsOf(after.cookie)).not.toHaveProperty('mod');
    expect((await list(boss.cookie)).body.moderators.map((m: { email: string }) => m.email)).not.toContain(
      'revoked@example.com',
    );
    // Idempotent.
    expect((await revoke('revoked@example.com', boss.cookie)).status).toBe(200);
    // A new grant gives it back to every open session, the old mod-claim one included.
    await grant('revoked@example.com', boss.cookie).expect(200);
    expect((await me(modSession.cookie)).body.is_moderator).toBe(true);
    expect((await me(after.cookie)).body.is_moderator).toBe(true);
  });

  it('concurrent grants and revokes leave the database and the override in agreement', async () => {
    const racer = await h.login('racer@example.com');
    const ops = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? grant('racer@example.com', boss.cookie) : revoke('racer@example.com', boss.cookie),
    );
    for (const res of await Promise.all(ops)) expect(res.status).toBe(200);
    const granted = await h.db.moderatorGrant.count({ where: { userId: racer.user.id } });
    expect((await me(racer.cookie)).body.is_moderator).toBe(granted === 1);
  });

  it('a set-username session keeps the role', async () => {
    const renamed = await request(h.app)
      .post('/api/auth/set-username')
      .set('Cookie', boss.cookie)
      .send({ username: 'the-boss' })
      .expect(200);
    const fresh = renamed.headers['set-cookie']![0]!.split(';')[0]!;
    expect(claimsOf(fresh).mod).toBe(true);
  });

  it('an email listed after an API revoke is a moderator again at its next login (either key of the override)', async () => {
    // owner@example.com was revoked as a grant earlier (simulated: the override says no).
    const owner = await h.login('owner@example.com');
    await setModeratorRole(h.redis, h.redisPrefix, owner.user.id, false);
    expect((await me(owner.cookie)).body.is_moderator).toBe(false);
    const next = await h.login('owner@example.com');
    expect((await me(next.cookie)).body.is_moderator).toBe(true);
    expect((await me(owner.cookie)).body.is_moderator).toBe(true);

    // The same when the revoke sits under the override's former key.
    await h.redis.del(moderatorRoleKey(h.redisPrefix, owner.user.id));
    await h.redis.set(formerModeratorRoleKey(h.redisPrefix, owner.user.id), '0', 'EX', 600);
    expect((await me(owner.cookie)).body.is_moderator).toBe(false);
    const third = await h.login('owner@example.com');
    expect((await me(third.cookie)).body.is_moderator).toBe(true);
    expect((await me(owner.cookie)).body.is_moderator).toBe(true);
  });
});
