import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Redis as SingleRedis } from 'ioredis';
import type { Redis } from '../src/redis/redis.js';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import {
  moderatorRoleKey,
  requireModerator,
  requireSession,
  revokeSession,
  sessionMiddleware,
  setModeratorRole,
} from '../src/auth/session.js';
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
