// Rotating the session signing key (docs/decisions/017-signing-key-rotation.md) with the
// real auth and app-store processes, restarted with each step's settings as an operator
// would: tokens of the old key keep working while both keys are set, new tokens carry the
// new kid, removing the old key rejects its tokens.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, createSign } from 'node:crypto';
import { keyIdOf } from '@svc/service-kit';
import {
  generateTestKeyPair,
  spawnService,
  waitForOk,
  type ServiceProcess,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { ROOT, createTestSystem, type FakeResend } from './system-processes.js';

const system = createTestSystem();
const oldKeys = system.keys;
const newKeys = generateTestKeyPair();
let resend: FakeResend;
let authDb: TestDatabase;
let appStoreDb: TestDatabase;
let auth: ServiceProcess | undefined;
let appStore: ServiceProcess | undefined;

/** The key settings of one step; auth also gets the private key that matches JWT_PUBLIC_KEY. */
interface KeySettings {
  privateKey: string;
  current: string;
  others: string[];
}

const keyEnv = (k: KeySettings) => ({ JWT_PUBLIC_KEY: k.current, JWT_PUBLIC_KEYS: k.others.join('\n') });

async function run(entry: string, env: Record<string, string>): Promise<ServiceProcess> {
  const proc = await spawnService({
    cwd: ROOT,
    entry,
    env: { REDIS_PREFIX: system.redisPrefix, LOG_LEVEL: 'info', ...env },
  });
  system.track({ close: () => proc.stop() });
  await waitForOk(proc, '/healthz', 20_000);
  return proc;
}

/** Stops both processes and starts them again with `k` (the database and Redis stay). */
async function deploy(k: KeySettings): Promise<void> {
  await Promise.all([auth?.stop(), appStore?.stop()]);
  [auth, appStore] = await Promise.all([
    run('services/auth/dist/main.js', {
      ...keyEnv(k),
      JWT_PRIVATE_KEY: k.privateKey,
      AUTH_DATABASE_URL: authDb.url,
      RESEND_API_KEY: 're_system_test',
      RESEND_BASE_URL: resend.baseUrl,
      EMAIL_FROM: 'Svc <login@svc.test>',
    }),
    run('services/app-store/dist/main.js', { ...keyEnv(k), APP_STORE_DATABASE_URL: appStoreDb.url }),
  ]);
}

async function login(email: string): Promise<string> {
  const post = (path: string, body: object) =>
    fetch(`${auth!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('/api/auth/send-code', { email })).status).toBe(200);
  const verified = await post('/api/auth/verify', { email, code: resend.lastCodeFor(email) });
  expect(verified.status).toBe(200);
  return /sn_token=([^;]+)/.exec(verified.headers.get('set-cookie') ?? '')![1]!;
}

/** The status of a session-only call on app-store and on auth. */
async function statuses(token: string): Promise<{ appStore: number; auth: number }> {
  const headers = { cookie: `sn_token=${token}` };
  const [a, b] = await Promise.all([
    fetch(`${appStore!.url}/api/v1/me`, { headers }),
    fetch(`${auth!.url}/api/auth/me`, { headers }),
  ]);
  return { appStore: a.status, auth: b.status };
}

/** The `session keys` line a process logged at start. */
function startupLog(proc: ServiceProcess): Record<string, unknown> {
  const line = proc
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"session keys"'));
  expect(line).toBeDefined();
  return JSON.parse(line!) as Record<string, unknown>;
}

const OK = { appStore: 200, auth: 200 };
const REFUSED = { appStore: 401, auth: 401 };
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const partOf = (token: string, i: 0 | 1) =>
  JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString()) as Record<string, unknown>;
const kidOf = (token: string) => partOf(token, 0).kid;

/** An ES256 JWT with the header and claims given (what jsonwebtoken would write). */
function es256(header: object, claims: object, privateKey: string): string {
  const head = `${b64({ alg: 'ES256', typ: 'JWT', ...header })}.${b64(claims)}`;
  const sig = createSign('SHA256').update(head).sign({ key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${head}.${sig.toString('base64url')}`;
}

/** A session as the release before key ids signed it: ES256, no kid, a user that exists. */
async function legacyToken(email: string): Promise<string> {
  return es256({}, partOf(await login(email), 1), oldKeys.privateKey);
}

beforeAll(async () => {
  resend = await system.resend();
  [authDb, appStoreDb] = await Promise.all([system.database('auth'), system.database('app-store')]);
}, 60_000);

afterAll(() => system.stop(), 30_000);

describe('a signing-key rotation through real processes', () => {
  let oldToken: string;
  let legacy: string;
  let newToken: string;

  it('before: one key; tokens carry its kid, tokens without kid still verify', async () => {
    await deploy({ privateKey: oldKeys.privateKey, current: oldKeys.publicKey, others: [] });
    oldToken = await login('rotation.old@example.com');
    expect(kidOf(oldToken)).toBe(keyIdOf(oldKeys.publicKey));
    legacy = await legacyToken('rotation.legacy@example.com');
    expect(kidOf(legacy)).toBeUndefined();
    expect(await statuses(oldToken)).toEqual(OK);
    expect(await statuses(legacy)).toEqual(OK);
  }, 60_000);

  it('step 1: the new public key added everywhere; old sessions go on', async () => {
    await deploy({ privateKey: oldKeys.privateKey, current: oldKeys.publicKey, others: [newKeys.publicKey] });
    // What an operator checks on every pod before step 2: the new kid is accepted.
    const accepted = { acceptedKids: [keyIdOf(oldKeys.publicKey), keyIdOf(newKeys.publicKey)] };
    expect(startupLog(appStore!)).toMatchObject(accepted);
    expect(startupLog(auth!)).toMatchObject({ ...accepted, signingKid: keyIdOf(oldKeys.publicKey) });
    expect(await statuses(oldToken)).toEqual(OK);
    expect(await statuses(legacy)).toEqual(OK);
    expect(kidOf(await login('rotation.step1@example.com'))).toBe(keyIdOf(oldKeys.publicKey));
  }, 60_000);

  it('step 2: auth signs with the new key; old and new sessions both work', async () => {
    await deploy({ privateKey: newKeys.privateKey, current: newKeys.publicKey, others: [oldKeys.publicKey] });
    newToken = await login('rotation.new@example.com');
    expect(kidOf(newToken)).toBe(keyIdOf(newKeys.publicKey));
    expect(await statuses(newToken)).toEqual(OK);
    expect(await statuses(oldToken)).toEqual(OK);
    expect(await statuses(legacy)).toEqual(OK);
  }, 60_000);

  it('step 3: the old key removed; its tokens are refused, the new ones work', async () => {
    await deploy({ privateKey: newKeys.privateKey, current: newKeys.publicKey, others: [] });
    expect(await statuses(newToken)).toEqual(OK);
    expect(await statuses(oldToken)).toEqual(REFUSED);
    expect(await statuses(legacy)).toEqual(REFUSED);
  }, 60_000);

  it('refuses an unknown kid and the HS256 confusion, kid or not', async () => {
    const claims = partOf(newToken, 1);
    // The control: the same claims with the right kid pass, so the refusals below are the kid's.
    expect(await statuses(es256({ kid: keyIdOf(newKeys.publicKey) }, claims, newKeys.privateKey))).toEqual(OK);
    expect(await statuses(es256({ kid: 'unknown' }, claims, newKeys.privateKey))).toEqual(REFUSED);
    expect(await statuses(es256({ kid: keyIdOf(oldKeys.publicKey) }, claims, newKeys.privateKey))).toEqual(REFUSED);
    for (const kid of [undefined, keyIdOf(newKeys.publicKey)]) {
      const head = `${b64({ alg: 'HS256', typ: 'JWT', kid })}.${b64(claims)}`;
      const sig = createHmac('sha256', newKeys.publicKey).update(head).digest('base64url');
      expect(await statuses(`${head}.${sig}`)).toEqual(REFUSED);
    }
  });

  it('refuses to start auth whose private key is not the current public key', async () => {
    const proc = await spawnService({
      cwd: ROOT,
      entry: 'services/auth/dist/main.js',
      env: {
        REDIS_PREFIX: system.redisPrefix,
        AUTH_DATABASE_URL: authDb.url,
        JWT_PRIVATE_KEY: newKeys.privateKey,
        JWT_PUBLIC_KEY: oldKeys.publicKey,
        JWT_PUBLIC_KEYS: newKeys.publicKey,
      },
    });
    system.track({ close: () => proc.stop() });
    expect((await proc.exited).code).not.toBe(0);
    expect(proc.output()).toMatch(/JWT_PRIVATE_KEY does not match JWT_PUBLIC_KEY/);
  }, 30_000);
});
