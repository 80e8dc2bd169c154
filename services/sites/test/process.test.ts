// The real entry points (API and worker): start, serve health, stop cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  clearRedisPrefix,
  testRedisPrefix,
} from '@svc/service-kit/testing';
import { spawnService, waitForOk, type ServiceProcess } from '@svc/service-kit/testing';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

const running: ServiceProcess[] = [];

const redisPrefix = testRedisPrefix();

afterAll(async () => {
  for (const proc of running) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  await clearRedisPrefix(redisPrefix);
});

// Readiness only runs SELECT 1 and PING: no tables needed.
const env = () => ({
  DATABASE_URL: TEST_DATABASE_URL,
  SITES_DATABASE_URL: '',
  REDIS_URL: TEST_REDIS_URL,
  REDIS_PREFIX: redisPrefix,
});

describe('sites processes', () => {
  for (const [name, entry, probe, status] of [
    ['API', 'src/main.ts', '/api/sites/tags', 200],
    ['worker', 'src/worker/main.ts', '/api/sites', 404],
  ] as const) {
    it(`${name}: serves /healthz and /readyz, then exits 0 within 10 s of SIGTERM`, async () => {
      const proc = await spawnService({ cwd: SERVICE_ROOT, source: true, entry, env: env() });
      running.push(proc);
      await waitForOk(proc, '/healthz');
      await waitForOk(proc, '/readyz', 10_000);
      expect((await fetch(`http://127.0.0.1:${proc.port}${probe}`)).status).toBe(status);
      expect((await fetch(`${proc.opsUrl}/metrics`)).status).toBe(200);

      expect(await proc.stop(10_000)).toBe(0);
    }, 90_000);
  }
});
