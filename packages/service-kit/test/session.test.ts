import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Redis as SingleRedis } from 'ioredis';
import type { Redis } from '../src/redis/redis.js';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import { requireModerator, requireSession, sessionMiddleware } from '../src/auth/session.js';
import {
  SESSION_EPOCH_TTL_SECONDS,
  confirmModeratorRole,
  currentSessionEpoch,
  formerModeratorRoleKey,
  moderatorRoleKey,
  revokeAllSessions,
  revokeSession,
  sessionEpochKey,
  sessionIsCurrent,
  setModeratorRole,
} from '../src/auth/session-state.js';
import { SESSION_COOKIE, signSessionToken, verifySessionToken } from '../src/auth/session-token.js';
import { TEST_REDIS_URL, deleteRedisPrefix, generateTestKeyPair, testRedisPrefix } from '../src/testing/index.js';

const logger = createLogger('test', 'silent');
const keys = generateTestKeyPair();
const otherKeys = generateTestKeyPair();
const prefix = testRedisPrefix();
const redis = createRedis(TEST_REDIS_URL, logger);
const user = { id: 'u1', email: 'a@example.com', username: 'alice' };

beforeAll(() => waitForRedis(redis));

afterAll(async () => {
  await deleteRedisPrefix(redis, prefix);
  redis.disconnect();
});

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('session tokens', () => {
  it('round-trips an ES256 token with the documented claims', () => {
    const { token, claims } = signSessionToken(user, keys.privateKey);
    expect(jwt.decode(token, { complete: true })?.header.alg).toBe('ES256');
    const verified = verifySessionToken(token, keys.publicKey);
    expect(verified).toEqual(claims);
    expect(verified!.exp - verified!.iat).toBe(30 * 24 * 3600);
  });

  it('refuses alg none', () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', email: 'a', username: 'a', jti: 'j', iat: now, exp: now + 60 })}.`;
    expect(verifySessionToken(token, keys.publicKey)).toBeNull();
  });

  it('refuses an HS256 token signed with the public key as the secret', () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'u1', email: 'a', username: 'a', jti: 'j', iat: now, exp: now + 60 };
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const body = b64(claims);
    const sig = createHmac('sha256', keys.publicKey).update(`${header}.${body}`).digest('base64url');
    expect(verifySessionToken(`${header}.${body}.${sig}`, keys.publicKey)).toBeNull();
  });

  it('refuses expired, tampered and foreign-key tokens', () => {
    const expired = signSessionToken(user, keys.privateKey, -10).token;
    expect(verifySessionToken(expired, keys.publicKey)).toBeNull();
    const { token } = signSessionToken(user, keys.privateKey);
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64({ ...jwt.decode(token) as object, username: 'mallory' })}.${s}`;
    expect(verifySessionToken(tampered, keys.publicKey)).toBeNull();
    expect(verifySessionToken(signSessionToken(user, otherKeys.privateKey).token, keys.publicKey)).toBeNull();
  });

  it('carries mod: true only for a moderator, and refuses any other mod value', () => {
    const mod = signSessionToken({ ...user, isModerator: true }, keys.privateKey);
    expect(verifySessionToken(mod.token, keys.publicKey)).toMatchObject({ mod: true });
    const plain = signSessionToken({ ...user, isModerator: false }, keys.privateKey);
    expect(verifySessionToken(plain.token, keys.publicKey)).not.toHaveProperty('mod');
    const now = Math.floor(Date.now() / 1000);
    const odd = jwt.sign(
      { sub: 'u1', email: 'a', username: 'a', jti: 'j', iat: now, exp: now + 60, mod: 'yes' },
      keys.privateKey,
      { algorithm: 'ES256' },
    );
    expect(verifySessionToken(odd, keys.publicKey)).toBeNull();
  });
});

describe('sessionMiddleware', () => {
  const appWith = (client: Redis) =>
    createServiceApp({
      logger,
      routes: (app) => {
        app.use(sessionMiddleware({ publicKey: keys.publicKey, redis: client, prefix }));
        app.get('/me', requireSession, (req, res) => void res.json(req.caller));
        app.get('/moderation', requireModerator, (_req, res) => void res.json({ ok: true }));
        // An API-key caller set by a service (as app-store does) is never a moderator.
        app.get('/as-key', (req, _res, next) => {
          req.caller = { userId: 'u9', email: 'k@example.com', username: 'k', via: 'api-key', isModerator: true };
          next();
        }, requireModerator, (_req, res) => void res.json({ ok: true }));
      },
    });

  it('sets the caller from a valid cookie and answers 401 without one', async () => {
    const app = appWith(redis);
    const { token } = signSessionToken(user, keys.privateKey);
    const ok = await request(app).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ userId: 'u1', username: 'alice', via: 'session' });
    const anon = await request(app).get('/me');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: 'Authentication required' });
    const junk = await request(app).get('/me').set('Cookie', `${SESSION_COOKIE}=junk`);
    expect(junk.status).toBe(401);
  });

  it('refuses a revoked session', async () => {
    const app = appWith(redis);
    const { token, claims } = signSessionToken(user, keys.privateKey);
    await revokeSession(redis, prefix, claims);
    expect(await redis.ttl(`${prefix}auth:revoked:${claims.jti}`)).toBeGreaterThan(29 * 24 * 3600);
    const res = await request(app).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`);
    expect(res.status).toBe(401);
  });

  it('fails closed with 503 when Redis cannot say whether the session is revoked', async () => {
    const dead = new SingleRedis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    const { token } = signSessionToken(user, keys.privateKey);
    const res = await request(appWith(dead)).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`);
    expect(res.status).toBe(503);
    dead.disconnect();
  });

  describe('the moderator role and requireModerator', () => {
    const cookie = (token: string) => `${SESSION_COOKIE}=${token}`;
    let n = 0;
    const someone = () => ({ id: `mod-user-${++n}`, email: `m${n}@example.com`, username: `m${n}` });

    it('401 without a session, 403 for a normal user and an API key, 200 for a moderator', async () => {
      const app = appWith(redis);
      const anon = await request(app).get('/moderation');
      expect(anon.status).toBe(401);
      expect(anon.body).toEqual({ error: 'Authentication required' });
      const plain = signSessionToken(someone(), keys.privateKey).token;
      const refused = await request(app).get('/moderation').set('Cookie', cookie(plain));
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'Moderators only' });
      expect((await request(app).get('/me').set('Cookie', cookie(plain))).body.isModerator).toBe(false);
      const key = await request(app).get('/as-key');
      expect(key.status).toBe(403);
      expect(key.body).toEqual({ error: 'Moderators only' });
      const mod = signSessionToken({ ...someone(), isModerator: true }, keys.privateKey).token;
      const ok = await request(app).get('/moderation').set('Cookie', cookie(mod));
      expect(ok.status).toBe(200);
      expect((await request(app).get('/me').set('Cookie', cookie(mod))).body.isModerator).toBe(true);
    });

    it("auth's grant and revoke override the claim of open sessions at once", async () => {
      const app = appWith(redis);
      const granted = someone();
      const plain = signSessionToken(granted, keys.privateKey).token;
      await setModeratorRole(redis, prefix, granted.id, true);
      expect(await redis.ttl(moderatorRoleKey(prefix, granted.id))).toBeGreaterThan(29 * 24 * 3600);
      expect((await request(app).get('/moderation').set('Cookie', cookie(plain))).status).toBe(200);

      const revoked = someone();
      const mod = signSessionToken({ ...revoked, isModerator: true }, keys.privateKey).token;
      await setModeratorRole(redis, prefix, revoked.id, false);
      expect((await request(app).get('/moderation').set('Cookie', cookie(mod))).status).toBe(403);
      // Still logged in: only the role went.
      expect((await request(app).get('/me').set('Cookie', cookie(mod))).status).toBe(200);
      await setModeratorRole(redis, prefix, revoked.id, true);
      expect((await request(app).get('/moderation').set('Cookie', cookie(mod))).status).toBe(200);
    });
  });
});

describe('sign out everywhere: the session epoch', () => {
  const app = () =>
    createServiceApp({
      logger,
      routes: (a) => {
        a.use(sessionMiddleware({ publicKey: keys.publicKey, redis, prefix }));
        a.get('/me', requireSession, (req, res) => void res.json(req.caller));
      },
    });
  let n = 0;
  const someone = () => ({ id: `epoch-user-${++n}`, email: `e${n}@example.com`, username: `e${n}` });
  /** A session signed as auth signs one: in the user's current epoch. */
  const signIn = async (u: typeof user) =>
    signSessionToken({ ...u, epoch: await currentSessionEpoch(redis, prefix, u.id) }, keys.privateKey);
  const status = async (token: string) =>
    (await request(app()).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`)).status;

  it("ends every session the user had, and nobody else's; sessions signed afterwards work", async () => {
    const alice = someone();
    const bob = someone();
    const [a1, a2, b1] = await Promise.all([signIn(alice), signIn(alice), signIn(bob)]);
    expect(a1.claims).not.toHaveProperty('epoch');
    // A token without the claim is of epoch 0, as every token signed before epochs existed.
    const unmarked = signSessionToken(alice, keys.privateKey);
    for (const s of [a1, a2, b1, unmarked]) expect(await status(s.token)).toBe(200);

    const epoch = await revokeAllSessions(redis, prefix, alice.id);
    expect(epoch).toBeGreaterThan(Date.now() - 60_000);
    for (const s of [a1, a2, unmarked]) expect(await status(s.token)).toBe(401);
    expect(await status(b1.token)).toBe(200);

    const after = await signIn(alice);
    expect(after.claims.epoch).toBe(epoch);
    expect(verifySessionToken(after.token, keys.publicKey)).toMatchObject({ epoch });
    expect(await status(after.token)).toBe(200);
    const ttl = await redis.ttl(sessionEpochKey(prefix, alice.id));
    expect(ttl).toBeGreaterThan(SESSION_EPOCH_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(SESSION_EPOCH_TTL_SECONDS);
  });

  it('is exact within one second: signed just before, refused; signed just after, accepted', async () => {
    // iat counts whole seconds; the epoch, not the time, decides. Tried again in the rare
    // case that the two signatures fall in different seconds.
    let checked = false;
    for (let attempt = 0; attempt < 5 && !checked; attempt++) {
      const u = someone();
      const before = await signIn(u);
      await revokeAllSessions(redis, prefix, u.id);
      const after = await signIn(u);
      if (before.claims.iat !== after.claims.iat) continue;
      expect(await status(before.token)).toBe(401);
      expect(await status(after.token)).toBe(200);
      checked = true;
    }
    expect(checked).toBe(true);
  });

  it('moves on for sign-outs in the same millisecond, and from a stored epoch ahead of the clock', async () => {
    const u = someone();
    const epochs = await Promise.all(Array.from({ length: 20 }, () => revokeAllSessions(redis, prefix, u.id)));
    expect(new Set(epochs).size).toBe(20);
    expect(await currentSessionEpoch(redis, prefix, u.id)).toBe(Math.max(...epochs));

    const ahead = Date.now() + 10 ** 9;
    await redis.set(sessionEpochKey(prefix, u.id), String(ahead));
    expect(await revokeAllSessions(redis, prefix, u.id)).toBe(ahead + 1);
  });

  it('once the epoch key has expired, the next sign-out still ends the sessions signed meanwhile', async () => {
    const u = someone();
    await revokeAllSessions(redis, prefix, u.id);
    const session = await signIn(u);
    // The key lives SESSION_TTL and an hour; gone, every session is current again, as it is:
    // every one signed before it was written has expired by then.
    await redis.del(sessionEpochKey(prefix, u.id));
    expect(await status(session.token)).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    expect(await revokeAllSessions(redis, prefix, u.id)).toBeGreaterThan(session.claims.epoch!);
    expect(await status(session.token)).toBe(401);
  });

  it('fails closed on a stored epoch that is not a number, and the next sign-out repairs it', async () => {
    const u = someone();
    const session = await signIn(u);
    await redis.set(sessionEpochKey(prefix, u.id), 'garbage');
    expect(await status(session.token)).toBe(401);
    await expect(currentSessionEpoch(redis, prefix, u.id)).rejects.toThrow(/not a number/);
    const epoch = await revokeAllSessions(redis, prefix, u.id);
    expect(await currentSessionEpoch(redis, prefix, u.id)).toBe(epoch);
    expect(await status((await signIn(u)).token)).toBe(200);
  });

  it('the rule: current from the stored epoch on; no claim is epoch 0; no stored epoch, every session', () => {
    expect(sessionIsCurrent({}, null)).toBe(true);
    expect(sessionIsCurrent({ epoch: 5 }, null)).toBe(true);
    expect(sessionIsCurrent({ epoch: 5 }, '5')).toBe(true);
    expect(sessionIsCurrent({ epoch: 6 }, '5')).toBe(true);
    expect(sessionIsCurrent({ epoch: 4 }, '5')).toBe(false);
    expect(sessionIsCurrent({}, '1')).toBe(false);
    for (const stored of ['', 'x', '-1', '1.5', '1e3', ' 5'])
      expect([stored, sessionIsCurrent({ epoch: 10 ** 15 }, stored)]).toEqual([stored, false]);
  });

  it('refuses a token whose epoch claim is not a whole number from 0', () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: 'u1', email: 'a', username: 'a', jti: 'j', iat: now, exp: now + 60 };
    for (const epoch of [-1, 1.5, '3', null]) {
      const token = jwt.sign({ ...base, epoch }, keys.privateKey, { algorithm: 'ES256' });
      expect([epoch, verifySessionToken(token, keys.publicKey)]).toEqual([epoch, null]);
    }
    const ok = jwt.sign({ ...base, epoch: 7 }, keys.privateKey, { algorithm: 'ES256' });
    expect(verifySessionToken(ok, keys.publicKey)).toMatchObject({ epoch: 7 });
  });

  it('leaves the role override as it was: its own key, its own life', async () => {
    const u = someone();
    await setModeratorRole(redis, prefix, u.id, true);
    await redis.expire(moderatorRoleKey(prefix, u.id), 600);
    await revokeAllSessions(redis, prefix, u.id);
    expect(await redis.get(moderatorRoleKey(prefix, u.id))).toBe('1');
    expect(await redis.ttl(moderatorRoleKey(prefix, u.id))).toBeLessThanOrEqual(600);
    const after = await signIn(u);
    expect((await request(app()).get('/me').set('Cookie', `${SESSION_COOKIE}=${after.token}`)).body.isModerator).toBe(true);
  });
});

describe("the role override's former key", () => {
  let n = 0;
  const someone = () => ({ id: `former-user-${++n}`, email: `f${n}@example.com`, username: `f${n}` });
  const isModerator = async (token: string) => {
    const app = createServiceApp({
      logger,
      routes: (a) => {
        a.use(sessionMiddleware({ publicKey: keys.publicKey, redis, prefix }));
        a.get('/me', requireSession, (req, res) => void res.json(req.caller));
      },
    });
    return (await request(app).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`)).body.isModerator;
  };

  it('is read when the per-user key has no role, and the per-user key wins over it', async () => {
    const u = someone();
    const plain = signSessionToken(u, keys.privateKey).token;
    await redis.set(formerModeratorRoleKey(prefix, u.id), '1', 'EX', 600);
    expect(await isModerator(plain)).toBe(true);
    await setModeratorRole(redis, prefix, u.id, false);
    expect(await isModerator(plain)).toBe(false);

    const v = someone();
    const mod = signSessionToken({ ...v, isModerator: true }, keys.privateKey).token;
    await redis.set(formerModeratorRoleKey(prefix, v.id), '0', 'EX', 600);
    expect(await isModerator(mod)).toBe(false);
  });

  it('confirmModeratorRole turns an existing override into a grant, keeping its life, and creates none', async () => {
    const u = someone();
    await confirmModeratorRole(redis, prefix, u.id);
    expect(await redis.exists(moderatorRoleKey(prefix, u.id), formerModeratorRoleKey(prefix, u.id))).toBe(0);

    await redis.set(moderatorRoleKey(prefix, u.id), '0', 'EX', 600);
    await redis.set(formerModeratorRoleKey(prefix, u.id), '0', 'EX', 300);
    await confirmModeratorRole(redis, prefix, u.id);
    expect(await redis.get(moderatorRoleKey(prefix, u.id))).toBe('1');
    expect(await redis.get(formerModeratorRoleKey(prefix, u.id))).toBe('1');
    expect(await redis.ttl(moderatorRoleKey(prefix, u.id))).toBeLessThanOrEqual(600);
    expect(await redis.ttl(formerModeratorRoleKey(prefix, u.id))).toBeLessThanOrEqual(300);
  });
});
