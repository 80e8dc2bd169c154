// The real entry point: starts, serves its health endpoints, stops cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '@svc/service-kit/testing';
import { spawnService, waitForOk, type ServiceProcess } from '@svc/service-kit/testing';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

let proc: ServiceProcess | undefined;

afterAll(() => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
});

describe('app-store process', () => {
  it('serves /healthz and /readyz, then exits 0 within 10 s of SIGTERM', async () => {
    proc = await spawnService({
      cwd: SERVICE_ROOT,
      source: true,
      entry: 'src/main.ts',
      env: {
        // Readiness only runs SELECT 1: no tables needed.
        DATABASE_URL: TEST_DATABASE_URL,
        APP_STORE_DATABASE_URL: '',
        REDIS_URL: TEST_REDIS_URL,
      },
    });
    await waitForOk(proc, '/healthz');
    await waitForOk(proc, '/readyz', 10_000);
    // The API is mounted (this endpoint needs no tables).
    const res = await fetch(`http://127.0.0.1:${proc.port}/api/v1/categories`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { categories: string[] }).categories).toHaveLength(12);

    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);
});
