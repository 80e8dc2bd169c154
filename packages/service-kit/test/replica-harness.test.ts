// The replica harness itself: a primary and a streaming standby of it on ports of their own
// (never the machine's PostgreSQL), data that follows, and nothing left after stop().
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { startReplicaCluster, type TestReplicaCluster } from '../src/testing/index.js';

let cluster: TestReplicaCluster | undefined;

afterAll(async () => {
  await cluster?.stop();
});

describe('startReplicaCluster', () => {
  it('starts a primary and a streaming standby, and removes both on stop', async () => {
    const started = Date.now();
    cluster = await startReplicaCluster({ database: 'harness_test' });
    const { primary, replica } = cluster;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(new Set([primary.port, replica.port, 5432]).size).toBe(3);
    expect(primary.url).toBe(`postgresql://postgres@127.0.0.1:${primary.port}/harness_test`);

    const [p] = await cluster.query<{ standby: boolean }>(
      primary,
      'SELECT pg_is_in_recovery() AS standby',
    );
    const [r] = await cluster.query<{ standby: boolean }>(
      replica,
      'SELECT pg_is_in_recovery() AS standby',
    );
    expect(p!.standby).toBe(false);
    expect(r!.standby).toBe(true);
    const streaming = await cluster.query<{ state: string }>(
      primary,
      'SELECT state FROM pg_stat_replication',
    );
    expect(streaming.map((s) => s.state)).toEqual(['streaming']);

    await cluster.query(primary, 'CREATE TABLE t (v int)');
    await cluster.query(primary, 'INSERT INTO t VALUES (42)');
    await cluster.waitForReplay();
    expect(await cluster.query(replica, 'SELECT v FROM t')).toEqual([{ v: 42 }]);
    await expect(cluster.query(replica, 'INSERT INTO t VALUES (1)')).rejects.toThrow(/read-only/);

    await cluster.stop();
    cluster = undefined;
    expect(existsSync(primary.dataDir)).toBe(false);
    expect(existsSync(replica.dataDir)).toBe(false);
    const client = new pg.Client({ connectionString: primary.url, connectionTimeoutMillis: 1000 });
    await expect(client.connect()).rejects.toThrow();
  }, 60_000);
});
