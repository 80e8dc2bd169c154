// The real entry point: starts, serves its health
// endpoints, upgrades /api/ws and nothing else, stops cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TEST_REDIS_URL } from '@svc/service-kit/testing';
import { spawnService, waitForOk, type ServiceProcess } from '@svc/service-kit/testing';
import { upgradeStatus } from './harness.js';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

let proc: ServiceProcess | undefined;

afterAll(() => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
});

describe('realtime process', () => {
  it('serves /healthz and /readyz, upgrades /api/ws only, then exits 0 within 10 s of SIGTERM', async () => {
    proc = await spawnService({
      cwd: SERVICE_ROOT,
      source: true,
      entry: 'src/main.ts',
      env: { REDIS_URL: TEST_REDIS_URL },
    });
    await waitForOk(proc, '/healthz');
    await waitForOk(proc, '/readyz', 10_000);
    expect(await upgradeStatus(proc.port, '/api/ws')).toBe(101);
    expect(await upgradeStatus(proc.port, '/api/nope')).toBe(404);

    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);
});
