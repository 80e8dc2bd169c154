// The real entry point: refuses to start without its production settings, naming them;
// with them it serves and stops cleanly on SIGTERM.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  clearRedisPrefix,
  generateTestKeyPair,
  spawnService,
  testRedisPrefix,
  waitForOk,
} from '@svc/service-kit/testing';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const start = (env: Record<string, string>) =>
  spawnService({ cwd: SERVICE_ROOT, source: true, entry: 'src/main.ts', env });

describe('auth process', () => {
  it('exits 1 in production without JWT keys, naming the missing settings', async () => {
    const proc = await start({ NODE_ENV: 'production', JWT_PRIVATE_KEY: '', JWT_PUBLIC_KEY: '' });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output()).toMatch(/JWT_PUBLIC_KEY is missing/);
    expect(proc.output()).toMatch(/JWT_PRIVATE_KEY is missing/);
  }, 30_000);

  it('exits 1 naming a malformed setting', async () => {
    const proc = await start({ REDIS_URL: 'not a url' });
    expect((await proc.exited).code).toBe(1);
    expect(proc.output()).toMatch(/REDIS_URL is invalid/);
  }, 30_000);

  it('serves with production settings and exits 0 on SIGTERM', async () => {
    const keys = generateTestKeyPair();
    const prefix = testRedisPrefix();
    const proc = await start({
      NODE_ENV: 'production',
      JWT_PRIVATE_KEY: keys.privateKey,
      JWT_PUBLIC_KEY: keys.publicKey,
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
    });
    await waitForOk(proc, '/readyz', 30_000);
    expect(await proc.stop()).toBe(0);
    await clearRedisPrefix(prefix);
  }, 60_000);
});
