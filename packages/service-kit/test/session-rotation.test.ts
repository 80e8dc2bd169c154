// Signing-key rotation (docs/decisions/017-signing-key-rotation.md): tokens carry the RFC 7638 thumbprint of their
// key as `kid`; a process accepts every key of its set; a token without `kid` (signed before
// key ids existed) is tried against each key of the set.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, createPublicKey, createSign } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { ConfigError } from '../src/ops/config.js';
import { jwtKeyIds, loadJwtKeys } from '../src/auth/jwt-keys.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis } from '../src/redis/redis.js';
import { requireSession, sessionMiddleware } from '../src/auth/session.js';
import { jwkThumbprint, keyIdOf, sessionKeySet, splitPemBundle } from '../src/auth/session-keys.js';
import { SESSION_COOKIE, signSessionToken, verifySessionToken } from '../src/auth/session-token.js';
import { TEST_REDIS_URL, deleteRedisPrefix, generateTestKeyPair, testRedisPrefix } from '../src/testing/index.js';

const oldKeys = generateTestKeyPair();
const newKeys = generateTestKeyPair();
const user = { id: 'u1', email: 'a@example.com', username: 'alice' };
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = () => ({ sub: 'u1', email: 'a@example.com', username: 'alice', jti: 'j1', iat: now(), exp: now() + 60 });
const headerOf = (token: string) => jwt.decode(token, { complete: true })!.header;

/** A token as auth signed them before this change: ES256, no kid. */
const legacyToken = (privateKey: string) => jwt.sign(claims(), privateKey, { algorithm: 'ES256' });

describe('key ids', () => {
  it('are the RFC 7638 thumbprint (the example key and jkt of RFC 9449 §6.1)', () => {
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      x: 'l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs',
      y: '9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA',
    };
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    expect(jwkThumbprint(key)).toBe('0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I');
    expect(keyIdOf(key.export({ type: 'spki', format: 'pem' }).toString())).toBe(
      '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I',
    );
  });

  it('are the same for a private key and its public key, different between keys', () => {
    expect(keyIdOf(oldKeys.privateKey)).toBe(keyIdOf(oldKeys.publicKey));
    expect(keyIdOf(newKeys.publicKey)).not.toBe(keyIdOf(oldKeys.publicKey));
  });

  it('are put in the header of every token auth signs', () => {
    const { token } = signSessionToken(user, newKeys.privateKey);
    expect(headerOf(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: keyIdOf(newKeys.publicKey) });
  });
});

describe('a rotation, step by step', () => {
  const oldOnly = [oldKeys.publicKey];
  const both = [newKeys.publicKey, oldKeys.publicKey];
  const newOnly = [newKeys.publicKey];

  it('step 1, the new key added everywhere: old tokens still verify', () => {
    const old = signSessionToken(user, oldKeys.privateKey);
    expect(verifySessionToken(old.token, [oldKeys.publicKey, newKeys.publicKey])).toEqual(old.claims);
  });

  it('step 2, auth signs with the new key: old and new tokens verify with both keys', () => {
    const old = signSessionToken(user, oldKeys.privateKey);
    const fresh = signSessionToken(user, newKeys.privateKey);
    expect(headerOf(fresh.token).kid).toBe(keyIdOf(newKeys.publicKey));
    expect(verifySessionToken(old.token, both)).toEqual(old.claims);
    expect(verifySessionToken(fresh.token, both)).toEqual(fresh.claims);
    // A process that missed step 1 would refuse the new tokens: why step 1 comes first.
    expect(verifySessionToken(fresh.token, oldOnly)).toBeNull();
  });

  it('step 3, the old key removed: its tokens are refused, new ones verify', () => {
    const old = signSessionToken(user, oldKeys.privateKey);
    const fresh = signSessionToken(user, newKeys.privateKey);
    expect(verifySessionToken(old.token, newOnly)).toBeNull();
    expect(verifySessionToken(legacyToken(oldKeys.privateKey), newOnly)).toBeNull();
    expect(verifySessionToken(fresh.token, newOnly)).toEqual(fresh.claims);
  });

  it('tokens without kid (from before the upgrade) verify against any key of the set', () => {
    expect(verifySessionToken(legacyToken(oldKeys.privateKey), oldOnly)).toMatchObject({ sub: 'u1' });
    expect(verifySessionToken(legacyToken(oldKeys.privateKey), both)).toMatchObject({ sub: 'u1' });
    expect(verifySessionToken(legacyToken(newKeys.privateKey), both)).toMatchObject({ sub: 'u1' });
    expect(verifySessionToken(legacyToken(generateTestKeyPair().privateKey), both)).toBeNull();
  });
});

describe('refused', () => {
  const both = [newKeys.publicKey, oldKeys.publicKey];

  it('an unknown kid, even on a token a key of the set signed', () => {
    const token = jwt.sign(claims(), oldKeys.privateKey, { algorithm: 'ES256', keyid: 'no-such-key' });
    expect(verifySessionToken(token, both)).toBeNull();
    const outsider = generateTestKeyPair();
    expect(verifySessionToken(signSessionToken(user, outsider.privateKey).token, both)).toBeNull();
  });

  it('a kid naming one key on a token the other key signed', () => {
    const token = jwt.sign(claims(), oldKeys.privateKey, { algorithm: 'ES256', keyid: keyIdOf(newKeys.publicKey) });
    expect(verifySessionToken(token, both)).toBeNull();
  });

  it('a kid that is not a string', () => {
    const head = b64({ alg: 'ES256', typ: 'JWT', kid: [keyIdOf(oldKeys.publicKey)] });
    const body = b64(claims());
    const sig = createSign('SHA256')
      .update(`${head}.${body}`)
      .sign({ key: oldKeys.privateKey, dsaEncoding: 'ieee-p1363' })
      .toString('base64url');
    expect(verifySessionToken(`${head}.${body}.${sig}`, both)).toBeNull();
  });

  it('alg none and HS256 with a public key as secret, with or without a valid kid', () => {
    for (const kid of [undefined, keyIdOf(oldKeys.publicKey), keyIdOf(newKeys.publicKey)]) {
      const none = `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(claims())}.`;
      expect(verifySessionToken(none, both)).toBeNull();
      for (const secret of both) {
        const head = b64({ alg: 'HS256', typ: 'JWT', kid });
        const body = b64(claims());
        const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
        expect(verifySessionToken(`${head}.${body}.${sig}`, both)).toBeNull();
      }
    }
  });

  it('garbage', () => {
    for (const token of ['', 'a.b.c', 'not a token', `${b64({ kid: 'x' })}..`]) {
      expect(verifySessionToken(token, both)).toBeNull();
    }
  });
});

describe('key sets', () => {
  it('count a key given twice once, the current key first', () => {
    const set = sessionKeySet([newKeys.publicKey, oldKeys.publicKey, newKeys.publicKey]);
    expect([...set.byKid.keys()]).toEqual([keyIdOf(newKeys.publicKey), keyIdOf(oldKeys.publicKey)]);
  });

  it('split a PEM bundle (JWT_PUBLIC_KEYS) into its keys', () => {
    const bundle = `${oldKeys.publicKey}\n\n${newKeys.publicKey}`;
    expect(splitPemBundle(bundle).map(keyIdOf)).toEqual([keyIdOf(oldKeys.publicKey), keyIdOf(newKeys.publicKey)]);
    expect(splitPemBundle('')).toEqual([]);
    expect(splitPemBundle(undefined)).toEqual([]);
  });
});

describe('loadJwtKeys with JWT_PUBLIC_KEYS', () => {
  it('verifies with the current key first, then the others', () => {
    const keys = loadJwtKeys({
      ...newKeys,
      otherPublicKeys: oldKeys.publicKey,
      production: true,
      needPrivate: true,
    });
    expect(keys.verifyKeys.map(keyIdOf)).toEqual([keyIdOf(newKeys.publicKey), keyIdOf(oldKeys.publicKey)]);
    expect(loadJwtKeys({ ...newKeys, otherPublicKeys: '', production: true, needPrivate: true }).verifyKeys).toEqual([
      newKeys.publicKey,
    ]);
  });

  it('names the signing kid (auth) and the accepted kids, for the start-up log', () => {
    const auth = loadJwtKeys({ ...newKeys, otherPublicKeys: oldKeys.publicKey, production: true, needPrivate: true });
    expect(jwtKeyIds(auth)).toEqual({
      signingKid: keyIdOf(newKeys.publicKey),
      acceptedKids: [keyIdOf(newKeys.publicKey), keyIdOf(oldKeys.publicKey)],
    });
    const verifier = loadJwtKeys({ publicKey: oldKeys.publicKey, production: true, needPrivate: false });
    expect(jwtKeyIds(verifier)).toEqual({ acceptedKids: [keyIdOf(oldKeys.publicKey)] });
  });

  it('refuses a value that holds no public key, or a private key, naming the setting', () => {
    const load = (otherPublicKeys: string) =>
      loadJwtKeys({ publicKey: newKeys.publicKey, otherPublicKeys, production: true, needPrivate: false });
    expect(() => load('nonsense')).toThrow(ConfigError);
    expect(() => load('nonsense')).toThrow(/JWT_PUBLIC_KEYS holds no PEM block/);
    expect(() => load(oldKeys.privateKey)).toThrow(/JWT_PUBLIC_KEYS key 1 is invalid: not a public key/);
    expect(() => load(`${oldKeys.publicKey}-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----`)).toThrow(
      /JWT_PUBLIC_KEYS key 2 is invalid/,
    );
  });
});

describe('sessionMiddleware with two keys', () => {
  const logger = createLogger('test', 'silent');
  const prefix = testRedisPrefix();
  const redis = createRedis(TEST_REDIS_URL, logger);
  const appWith = (publicKeys: string[]) =>
    createServiceApp({
      logger,
      routes: (app) => {
        app.use(sessionMiddleware({ publicKey: publicKeys, redis, prefix }));
        app.get('/me', requireSession, (req, res) => {
          res.json({ userId: req.caller!.userId });
        });
      },
    });
  const me = (app: ReturnType<typeof appWith>, token: string) =>
    request(app).get('/me').set('Cookie', `${SESSION_COOKIE}=${token}`);

  beforeAll(() => waitForRedis(redis));
  afterAll(async () => {
    await deleteRedisPrefix(redis, prefix);
    redis.disconnect();
  });

  it('lets the old and the new key in while both are set, and only the new one after', async () => {
    const old = signSessionToken(user, oldKeys.privateKey).token;
    const fresh = signSessionToken(user, newKeys.privateKey).token;
    const during = appWith([newKeys.publicKey, oldKeys.publicKey]);
    expect((await me(during, old)).status).toBe(200);
    expect((await me(during, fresh)).body).toEqual({ userId: 'u1' });
    expect((await me(during, legacyToken(oldKeys.privateKey))).status).toBe(200);
    const after = appWith([newKeys.publicKey]);
    expect((await me(after, fresh)).status).toBe(200);
    expect((await me(after, old)).status).toBe(401);
    expect((await me(after, legacyToken(oldKeys.privateKey))).status).toBe(401);
  });

  it('refuses to start with a key that is not one', () => {
    expect(() => sessionMiddleware({ publicKey: ['nonsense'], redis, prefix })).toThrow();
  });
});
