// The real entry points (API and worker): start, serve health, stop cleanly on SIGTERM; the
// API with a read replica (the kit's throwaway primary and standby) reads its listing there.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  clearRedisPrefix,
  createTestDatabase,
  eventually,
  startReplicaCluster,
  testRedisPrefix,
  type TestReplicaCluster,
} from '@svc/service-kit/testing';
import { spawnService, waitForOk, type ServiceProcess } from '@svc/service-kit/testing';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

const running: ServiceProcess[] = [];
let cluster: TestReplicaCluster | undefined;

const redisPrefix = testRedisPrefix();

afterAll(async () => {
  for (const proc of running) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  await clearRedisPrefix(redisPrefix);
  await cluster?.stop();
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

  it('API with a read replica: the listing is read on it, and SIGTERM still exits 0', async () => {
    cluster = await startReplicaCluster();
    const migrations = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
    const database = await createTestDatabase(migrations, { url: cluster.primary.url });
    const proc = await spawnService({
      cwd: SERVICE_ROOT,
      source: true,
      entry: 'src/main.ts',
      env: {
        ...env(),
        SITES_DATABASE_URL: database.url,
        // No user, database or schema: the primary's (its own URL's schema).
        SITES_DATABASE_REPLICA_URLS: `postgresql://127.0.0.1:${cluster.replica.port}`,
      },
    });
    running.push(proc);
    await waitForOk(proc, '/readyz', 10_000);
    const replicaReads = /^db_reads_total\{read="listSites",target="replica"[^}]*\} (\d+)/m;
    const metrics = await eventually(async () => {
      expect((await fetch(`http://127.0.0.1:${proc.port}/api/sites`)).status).toBe(200);
      const text = await (await fetch(`${proc.opsUrl}/metrics`)).text();
      return replicaReads.test(text) ? text : undefined;
    });
    expect(Number(replicaReads.exec(metrics)![1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^db_replica_in_use\{replica="127\.0\.0\.1:\d+"[^}]*\} 1$/m);
    expect(await (await fetch(`${proc.opsUrl}/readyz`)).json()).toMatchObject({
      status: 'ready',
      checks: { postgres_replicas: 'ok' },
    });
    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);
});
