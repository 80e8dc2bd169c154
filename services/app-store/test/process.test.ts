// The real entry point: starts, serves its health endpoints, stops cleanly on SIGTERM.
import { afterAll, describe, expect, it } from '@jest/globals';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '@svc/service-kit/testing';
import { exitWithin, spawnService, waitForOk, type ServiceProcess } from './support/process.js';

let proc: ServiceProcess | undefined;

afterAll(() => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
});

describe('app-store process', () => {
  it('serves /healthz and /readyz, then exits 0 within 10 s of SIGTERM', async () => {
    proc = await spawnService('src/main.ts', {
      // Readiness only runs SELECT 1: no tables needed.
      DATABASE_URL: TEST_DATABASE_URL,
      APP_STORE_DATABASE_URL: '',
      REDIS_URL: TEST_REDIS_URL,
    });
    await waitForOk(proc, '/healthz');
    await waitForOk(proc, '/readyz', 10_000);
    const res = await fetch(`http://127.0.0.1:${proc.port}/api/v1/apps`);
    expect(res.status).toBe(404);

    proc.child.kill('SIGTERM');
    expect(await exitWithin(proc, 10_000)).toBe(0);
  }, 90_000);
});
