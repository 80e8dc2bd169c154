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
  it('exits 1 in production without RESEND_API_KEY (the mailer that logs codes), naming it', async () => {
    const proc = await start({ NODE_ENV: 'production', RESEND_API_KEY: '' });
    expect((await proc.exited).code).toBe(1);
    expect(proc.output()).toMatch(/RESEND_API_KEY is invalid: required when NODE_ENV=production/);
  }, 30_000);

  it('exits 1 in production without JWT keys, naming the missing settings', async () => {
    const proc = await start({
      NODE_ENV: 'production',
      RESEND_API_KEY: 're_test',
      INTERNAL_TOKEN: 'process-test-internal-token',
      JWT_PRIVATE_KEY: '',
      JWT_PUBLIC_KEY: '',
    });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output()).toMatch(/JWT_PUBLIC_KEY is missing/);
    expect(proc.output()).toMatch(/JWT_PRIVATE_KEY is missing/);
  }, 30_000);

  it('exits 1 in production without INTERNAL_TOKEN (the data export calls), naming it', async () => {
    const proc = await start({ NODE_ENV: 'production', RESEND_API_KEY: 're_test' });
    expect((await proc.exited).code).toBe(1);
    expect(proc.output()).toMatch(/INTERNAL_TOKEN is missing: a secret of at least 16 characters/);
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
      RESEND_API_KEY: 're_test',
      JWT_PRIVATE_KEY: keys.privateKey,
      JWT_PUBLIC_KEY: keys.publicKey,
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      INTERNAL_TOKEN: 'process-test-internal-token',
    });
    await waitForOk(proc, '/readyz', 30_000);
    // The detail and the metrics are on the ops port only (docs/decisions/013-operations-port.md).
    expect(await (await fetch(`${proc.url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect((await fetch(`${proc.url}/metrics`)).status).toBe(404);
    expect(await (await fetch(`${proc.opsUrl}/readyz`)).json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', redis: 'ok' },
    });
    const metrics = await (await fetch(`${proc.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total/);
    // The notify-email queue's depth, for the queue alerts (k8s/README.md "Monitoring").
    expect(metrics).toContain('queue_jobs{queue="notify-email",state="waiting",service="auth"} 0');
    expect(await proc.stop()).toBe(0);
    await clearRedisPrefix(prefix);
  }, 60_000);
});
