// The read router against a real streaming replica (testing/replica-harness.ts): reads land
// on the replica, a caller's own write is visible to them at once while others may still
// read the replica, a cache load after a write reads the primary, an idle primary is not
// lag, a paused replica past the bound is skipped until it catches up, and a stopped one
// moves reads to the primary without an error while /readyz stays 200, degraded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type pg from 'pg';
import { Registry } from 'prom-client';
import { createServiceApp } from '../src/http/app.js';
import { opsHandlerOf } from '../src/ops/ops.js';
import { createLogger } from '../src/ops/logger.js';
import { createRedis, waitForRedis, type Redis } from '../src/redis/redis.js';
import { createPgPool } from '../src/data/prisma-adapter.js';
import {
  replicaName,
  resolveDatabaseTarget,
  resolveReplicaTargets,
  type DatabaseTarget,
} from '../src/data/database-url.js';
import { createReadRouter, type ReadRouter } from '../src/data/read-router.js';
import {
  TEST_REDIS_URL,
  deleteRedisPrefix,
  eventually,
  startReplicaCluster,
  testRedisPrefix,
  type TestReplicaCluster,
} from '../src/testing/index.js';

const logger = createLogger('read-replicas-test', 'silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ROUTING = { notes: 'replica', page: 'cache', moderation: 'primary' } as const;
type Router = ReadRouter<pg.Pool, keyof typeof ROUTING>;

let cluster: TestReplicaCluster;
let primaryTarget: DatabaseTarget;
let replicaTarget: DatabaseTarget;
let primaryPool: pg.Pool;
let redis: Redis;
const redisPrefix = testRedisPrefix();
let seq = 0;

beforeAll(async () => {
  cluster = await startReplicaCluster();
  primaryTarget = resolveDatabaseTarget(undefined, cluster.primary.url, 'notes_svc');
  [replicaTarget] = resolveReplicaTargets({ shared: cluster.replica.url }, primaryTarget) as [
    DatabaseTarget,
  ];
  primaryPool = createPgPool(primaryTarget, 5);
  await primaryPool.query('CREATE SCHEMA notes_svc');
  await primaryPool.query('CREATE TABLE notes_svc.notes (id text PRIMARY KEY, body text NOT NULL)');
  await cluster.waitForReplay();
  redis = createRedis(TEST_REDIS_URL, logger, { name: 'read-replicas-test' });
  await waitForRedis(redis);
}, 60_000);

afterAll(async () => {
  await primaryPool?.end();
  if (redis) {
    await deleteRedisPrefix(redis, redisPrefix);
    redis.disconnect();
  }
  await cluster?.stop();
});

function routerWith(maxLagMs: number): { router: Router; registry: Registry } {
  const registry = new Registry();
  const replicaPool = createPgPool(replicaTarget, 3);
  const router = createReadRouter<pg.Pool, keyof typeof ROUTING>({
    service: 'notes',
    routing: ROUTING,
    primary: primaryPool,
    primaryTarget,
    replicas: [
      {
        name: replicaName(replicaTarget),
        target: replicaTarget,
        client: replicaPool,
        close: () => replicaPool.end(),
      },
    ],
    maxLagMs,
    redis,
    redisPrefix,
    registry,
    logger,
    pollMs: 100,
  });
  return { router, registry };
}

/** Which server answered the read, and the note it found (if any). */
async function readNote(
  router: Router,
  name: keyof typeof ROUTING,
  caller: string | undefined,
  id = '',
) {
  return router.read(name, caller, async (pool) => {
    const { rows } = await pool.query<{ standby: boolean; body: string | null }>(
      'SELECT pg_is_in_recovery() AS standby, (SELECT body FROM notes WHERE id = $1) AS body',
      [id],
    );
    return { on: rows[0]!.standby ? 'replica' : 'primary', body: rows[0]!.body };
  });
}

async function addNote(body: string): Promise<string> {
  const id = `n${++seq}`;
  await primaryPool.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [id, body]);
  return id;
}

async function metric(registry: Registry, name: string, labels: Record<string, string>) {
  const found = registry.getSingleMetric(name);
  if (!found) return undefined;
  const { values } = await found.get();
  return values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
}

const inUse = (router: Router) => router.monitor!.views()[0]!.usable;

describe('read router on a streaming replica', () => {
  it('sends lag-tolerant reads to the replica and primary reads to the primary, and counts them', async () => {
    const { router, registry } = routerWith(10_000);
    try {
      await router.monitor!.firstPoll;
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      for (let i = 0; i < 3; i++)
        expect((await readNote(router, 'notes', undefined)).on).toBe('replica');
      expect((await readNote(router, 'moderation', undefined)).on).toBe('primary');
      expect(await metric(registry, 'db_reads_total', { read: 'notes', target: 'replica' })).toBe(
        3,
      );
      expect(
        await metric(registry, 'db_reads_total', { read: 'moderation', target: 'primary' }),
      ).toBe(1);
      expect(await metric(registry, 'db_replica_up', { replica: replicaName(replicaTarget) })).toBe(
        1,
      );
      expect(
        await metric(registry, 'db_replica_in_use', { replica: replicaName(replicaTarget) }),
      ).toBe(1);
      expect(await router.readiness.postgres_replicas!()).toBeUndefined();
    } finally {
      await router.close();
    }
  });

  it('shows a write to its author at once while another caller still reads the replica', async () => {
    const { router } = routerWith(10_000);
    await cluster.pauseReplay();
    try {
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      const id = await addNote('written by alice');
      await router.wrote('alice');
      // alice's read: the replica has not replayed her write, so the primary answers.
      expect(await readNote(router, 'notes', 'alice', id)).toEqual({
        on: 'primary',
        body: 'written by alice',
      });
      // bob wrote nothing: the replica, which does not have the note yet.
      expect(await readNote(router, 'notes', 'bob', id)).toEqual({ on: 'replica', body: null });
      expect(await readNote(router, 'notes', undefined, id)).toEqual({ on: 'replica', body: null });
      await cluster.resumeReplay();
      // Once the replica is past alice's write, her reads go there too, and see it.
      const seen = await eventually(
        async () => {
          const r = await readNote(router, 'notes', 'alice', id);
          return r.on === 'replica' ? r : undefined;
        },
        { what: "alice's read on the replica" },
      );
      expect(seen.body).toBe('written by alice');
    } finally {
      await cluster.resumeReplay();
      await router.close();
    }
  });

  it('loads a cache from the primary after a write of this process, until the replica has it', async () => {
    const { router } = routerWith(10_000);
    await cluster.pauseReplay();
    try {
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      expect((await readNote(router, 'page', undefined)).on).toBe('replica');
      const id = await addNote('listed');
      await router.wrote(undefined);
      expect(await readNote(router, 'page', undefined, id)).toEqual({
        on: 'primary',
        body: 'listed',
      });
      await cluster.resumeReplay();
      const seen = await eventually(
        async () => {
          const r = await readNote(router, 'page', undefined, id);
          return r.on === 'replica' ? r : undefined;
        },
        { what: 'the cache load on the replica' },
      );
      expect(seen.body).toBe('listed');
    } finally {
      await cluster.resumeReplay();
      await router.close();
    }
  });

  it('does not count an idle primary as lag, however old the last commit', async () => {
    const { router, registry } = routerWith(300);
    try {
      await cluster.waitForReplay();
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      // Three bounds without a write: the last replayed commit is older than the bound.
      await sleep(1000);
      const [view] = router.monitor!.views();
      expect(view).toMatchObject({ up: true, usable: true, lagMs: 0 });
      expect(await metric(registry, 'db_replica_lag_seconds', { replica: view!.name })).toBe(0);
      expect((await readNote(router, 'notes', undefined)).on).toBe('replica');
    } finally {
      await router.close();
    }
  });

  it('skips a paused replica once it is behind by more than the bound, and uses it again after resume', async () => {
    const { router, registry } = routerWith(500);
    const name = replicaName(replicaTarget);
    await cluster.pauseReplay();
    try {
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      const id = await addNote('while paused');
      const skippedAfter = Date.now();
      await eventually(() => (inUse(router) ? undefined : true), { what: 'the replica skipped' });
      // Not before the bound: a little lag is what replicas are for.
      expect(Date.now() - skippedAfter).toBeGreaterThanOrEqual(400);
      expect(await readNote(router, 'notes', undefined, id)).toEqual({
        on: 'primary',
        body: 'while paused',
      });
      expect(await metric(registry, 'db_replica_up', { replica: name })).toBe(1);
      expect(await metric(registry, 'db_replica_in_use', { replica: name })).toBe(0);
      expect(await metric(registry, 'db_replica_lag_seconds', { replica: name })).toBeGreaterThan(
        0.5,
      );
      expect(await router.readiness.postgres_replicas!()).toEqual({
        degraded: expect.stringMatching(
          /behind by .* \(bound 0\.5 s\): skipped, reads go to the primary/,
        ),
      });
      await cluster.resumeReplay();
      await eventually(() => (inUse(router) ? true : undefined), {
        what: 'the replica in use again',
      });
      expect(await readNote(router, 'notes', undefined, id)).toEqual({
        on: 'replica',
        body: 'while paused',
      });
      expect(await metric(registry, 'db_replica_skips_total', { replica: name })).toBe(1);
    } finally {
      await cluster.resumeReplay();
      await router.close();
    }
  });

  it('moves reads to the primary without an error when the replica stops, /readyz 200 degraded', async () => {
    const { router, registry } = routerWith(10_000);
    const app = createServiceApp({
      logger,
      readiness: {
        postgres: async () => {
          await primaryPool.query('SELECT 1');
        },
        ...router.readiness,
      },
      routes: (a) => {
        a.get('/notes/:id', async (req, res) => {
          res.json(await readNote(router, 'notes', undefined, req.params.id));
        });
      },
    });
    const ops = opsHandlerOf(app)!;
    try {
      const id = await addNote('survives');
      await cluster.waitForReplay();
      await eventually(() => (inUse(router) ? true : undefined), { what: 'the replica in use' });
      expect((await request(app).get(`/notes/${id}`)).body).toEqual({
        on: 'replica',
        body: 'survives',
      });
      expect((await request(ops).get('/readyz')).body).toEqual({
        status: 'ready',
        checks: { postgres: 'ok', postgres_replicas: 'ok' },
      });

      await cluster.stopReplica();
      // At once, before the monitor has noticed: the replica's connections are gone, the read
      // is made again on the primary.
      const res = await request(app).get(`/notes/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ on: 'primary', body: 'survives' });
      const ready = await request(ops).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'degraded',
        checks: { postgres: 'ok', postgres_replicas: 'degraded' },
        degraded: {
          postgres_replicas: expect.stringMatching(/down: skipped, reads go to the primary$/),
        },
      });
      expect((await request(app).get('/readyz')).status).toBe(200);
      await eventually(async () =>
        (await metric(registry, 'db_replica_up', { replica: replicaName(replicaTarget) })) === 0
          ? true
          : undefined,
      );
      for (let i = 0; i < 3; i++)
        expect((await request(app).get(`/notes/${id}`)).body.on).toBe('primary');

      await cluster.startReplica();
      await eventually(() => (inUse(router) ? true : undefined), {
        what: 'the replica back in use',
      });
      expect((await request(app).get(`/notes/${id}`)).body).toEqual({
        on: 'replica',
        body: 'survives',
      });
      expect((await request(ops).get('/readyz')).body.status).toBe('ready');
    } finally {
      await router.close();
    }
  }, 60_000);
});
