// The pure parts of read replicas: WAL positions, a standby's lag (an idle primary is not
// lag), which replica a read takes, where a service's replicas are and what /readyz says.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatLsn, lsnKey, parseLsn, parseLsnKey } from '../src/data/lsn.js';
import {
  chooseReplica,
  replicaLagMs,
  replicaProblems,
  type PrimarySample,
  type ReplicaView,
} from '../src/data/replica-choice.js';
import { resolveDatabaseTarget, resolveReplicaTargets } from '../src/data/database-url.js';
import { replicaCannotServe } from '../src/data/read-router.js';
import { readReplicaSettings, ConfigError, loadConfig } from '../src/ops/config.js';
import { runChecks } from '../src/ops/health.js';

describe('WAL positions', () => {
  it('parses and prints what PostgreSQL writes', () => {
    expect(parseLsn('0/3000000')).toBe(0x3000000n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    expect(() => parseLsn('16B374D848')).toThrow(/Not a WAL position/);
    expect(() => parseLsn('')).toThrow(/Not a WAL position/);
  });

  it('orders as positions do, also across the 32-bit halves', () => {
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('0/A') > parseLsn('0/9')).toBe(true);
  });

  it('keys compare as strings as positions do, and only keys parse back', () => {
    const a = lsnKey(parseLsn('0/FFFFFFFF'));
    const b = lsnKey(parseLsn('1/0'));
    expect(a).toHaveLength(16);
    expect(a < b).toBe(true);
    expect(parseLsnKey(b)).toBe(parseLsn('1/0'));
    expect(parseLsnKey(null)).toBeUndefined();
    expect(parseLsnKey('1/0')).toBeUndefined();
  });
});

describe('replicaLagMs', () => {
  const history: PrimarySample[] = [
    { lsn: 100n, at: 1_000 },
    { lsn: 100n, at: 1_200 },
    { lsn: 150n, at: 1_400 },
    { lsn: 200n, at: 1_600 },
  ];

  it('is 0 once the standby has replayed what the primary last had, however old its last commit', () => {
    // An idle primary: the last commit an hour ago, nothing to replay since.
    expect(replicaLagMs({ replayLsn: 200n, replayAgeMs: 3_600_000 }, history, 1_700)).toBe(0);
  });

  it('dates a standby by the last primary sample it has replayed', () => {
    // Replayed 150: it has all the primary had at 1400.
    expect(replicaLagMs({ replayLsn: 170n, replayAgeMs: 3_600_000 }, history, 1_700)).toBe(300);
    expect(replicaLagMs({ replayLsn: 100n, replayAgeMs: null }, history, 1_700)).toBe(500);
  });

  it('takes the last commit age when it is the smaller bound', () => {
    expect(replicaLagMs({ replayLsn: 100n, replayAgeMs: 50 }, history, 1_700)).toBe(50);
  });

  it('falls back to the commit age when the history does not reach back far enough', () => {
    expect(replicaLagMs({ replayLsn: 10n, replayAgeMs: 20_000 }, history, 1_700)).toBe(20_000);
    expect(replicaLagMs({ replayLsn: 10n, replayAgeMs: null }, history, 1_700)).toBe(Infinity);
  });

  it('is unbounded for a standby that has replayed nothing, and never negative', () => {
    expect(replicaLagMs({ replayLsn: null, replayAgeMs: null }, history, 1_700)).toBe(Infinity);
    expect(replicaLagMs({ replayLsn: 1n, replayAgeMs: -40 }, [], 1_700)).toBe(0);
  });
});

describe('chooseReplica', () => {
  const view = (name: string, usable: boolean, replayLsn: bigint | null): ReplicaView => ({
    name,
    up: usable,
    usable,
    replayLsn,
    lagMs: usable ? 0 : Infinity,
  });
  const views = [view('a', true, 100n), view('b', false, 300n), view('c', true, 200n)];

  it('takes usable replicas in turn and skips the others', () => {
    expect(chooseReplica(views, undefined, 0)).toBe(0);
    expect(chooseReplica(views, undefined, 1)).toBe(2);
    expect(chooseReplica(views, undefined, 2)).toBe(2);
    expect(chooseReplica(views, undefined, 3 % views.length)).toBe(0);
  });

  it('takes only a replica that has replayed the position asked for', () => {
    expect(chooseReplica(views, 150n, 0)).toBe(2);
    expect(chooseReplica(views, 200n, 0)).toBe(2);
    // b has it but is not usable: the primary.
    expect(chooseReplica(views, 250n, 0)).toBeUndefined();
    expect(chooseReplica([view('x', true, null)], 1n, 0)).toBeUndefined();
  });

  it('leaves the read to the primary without replicas', () => {
    expect(chooseReplica([], undefined, 0)).toBeUndefined();
  });
});

describe('replicaProblems', () => {
  it('names each skipped replica and where reads go', () => {
    const ok: ReplicaView = { name: 'r1:5432', up: true, usable: true, replayLsn: 1n, lagMs: 0 };
    const down: ReplicaView = {
      name: 'r2:5432',
      up: false,
      usable: false,
      replayLsn: null,
      lagMs: Infinity,
    };
    const behind: ReplicaView = {
      name: 'r3:5432',
      up: true,
      usable: false,
      replayLsn: 1n,
      lagMs: 12_345,
    };
    expect(replicaProblems([ok], 10_000)).toBeUndefined();
    expect(replicaProblems([ok, down], 10_000)).toBe(
      'r2:5432 down: skipped, reads go to the other replicas',
    );
    expect(replicaProblems([down, behind], 10_000)).toBe(
      'r2:5432 down; r3:5432 behind by 12.3 s (bound 10 s): skipped, reads go to the primary',
    );
  });
});

describe('resolveReplicaTargets', () => {
  const shared = resolveDatabaseTarget(
    undefined,
    'postgresql://app:secret@db-rw:5432/svc',
    'sites',
  );

  it('gives shared replicas the service schema, the primary credentials and database', () => {
    const [r] = resolveReplicaTargets({ shared: 'postgresql://db-ro:5432' }, shared);
    expect(r).toMatchObject({
      host: 'db-ro',
      port: 5432,
      user: 'app',
      password: 'secret',
      database: 'svc',
      schema: 'sites',
    });
  });

  it('reads a comma-separated list, with its own credentials, database and schema', () => {
    const list = 'postgresql://ro:pw@r1:6432/other?schema=x, postgres://r2';
    const [a, b] = resolveReplicaTargets({ shared: list }, shared);
    expect(a).toMatchObject({
      host: 'r1',
      port: 6432,
      user: 'ro',
      password: 'pw',
      database: 'other',
      schema: 'x',
    });
    expect(b).toMatchObject({ host: 'r2', port: 5432, user: 'app', schema: 'sites' });
  });

  it('never gives a service with a database of its own the shared replicas', () => {
    const own = resolveDatabaseTarget(
      'postgresql://own:5432/sites',
      'postgresql://db-rw/svc',
      'sites',
    );
    expect(resolveReplicaTargets({ shared: 'postgresql://db-ro', ownPrimary: 'x' }, own)).toEqual(
      [],
    );
    const [r] = resolveReplicaTargets(
      { own: 'postgresql://own-ro', shared: 'postgresql://db-ro', ownPrimary: 'x' },
      own,
    );
    expect(r).toMatchObject({ host: 'own-ro', database: 'sites', schema: 'public' });
  });

  it('has none when nothing is set, and refuses a URL that is not PostgreSQL', () => {
    expect(resolveReplicaTargets({}, shared)).toEqual([]);
    expect(resolveReplicaTargets({ shared: ' , ' }, shared)).toEqual([]);
    expect(() => resolveReplicaTargets({ shared: 'mysql://x' }, shared)).toThrow(
      /Not a PostgreSQL URL/,
    );
  });
});

describe('read replica settings', () => {
  const schema = z.object(readReplicaSettings);

  it('defaults to no replica and a 10 s bound', () => {
    expect(loadConfig(schema, {})).toEqual({
      DATABASE_REPLICA_URLS: undefined,
      DATABASE_REPLICA_MAX_LAG_MS: 10_000,
    });
  });

  it('refuses what is not a list of PostgreSQL URLs, and a bound out of range', () => {
    expect(() =>
      loadConfig(schema, { DATABASE_REPLICA_URLS: 'postgresql://a, redis://b' }),
    ).toThrow(ConfigError);
    expect(() => loadConfig(schema, { DATABASE_REPLICA_MAX_LAG_MS: '10' })).toThrow(
      /DATABASE_REPLICA_MAX_LAG_MS is invalid/,
    );
    expect(
      loadConfig(schema, { DATABASE_REPLICA_URLS: 'postgresql://a:5433,postgresql://b' })
        .DATABASE_REPLICA_URLS,
    ).toBe('postgresql://a:5433,postgresql://b');
  });
});

describe('replicaCannotServe', () => {
  it('is true for an unreachable replica and a recovery conflict, false for a bad query', () => {
    expect(
      replicaCannotServe(
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe(true);
    expect(replicaCannotServe(Object.assign(new Error('x'), { code: '40001' }))).toBe(true);
    expect(
      replicaCannotServe({ meta: { driverAdapterError: { cause: { originalCode: '40001' } } } }),
    ).toBe(true);
    expect(
      replicaCannotServe(
        Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      ),
    ).toBe(false);
  });
});

describe('runChecks', () => {
  it('is ready and says so when a check is degraded, unavailable when one fails', async () => {
    const ok = async () => undefined;
    const degraded = async () => ({ degraded: 'r1 down' });
    const failing = async () => {
      throw new Error('down');
    };
    expect(await runChecks({ postgres: ok })).toEqual({ ready: true, checks: { postgres: 'ok' } });
    expect(await runChecks({ postgres: ok, postgres_replicas: degraded })).toEqual({
      ready: true,
      checks: { postgres: 'ok', postgres_replicas: 'degraded' },
      degraded: { postgres_replicas: 'r1 down' },
    });
    expect((await runChecks({ postgres: failing, postgres_replicas: degraded })).ready).toBe(false);
  });
});
