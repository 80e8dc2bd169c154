// Watches the read replicas in the background (docs/decisions/037-read-replicas.md): every
// `intervalMs` it reads the primary's WAL position and each standby's replay position, on
// connections of its own, so a request never waits for such a check. From these come each
// replica's lag (replica-choice.ts), whether reads may go to it, the metrics and the
// readiness detail.
import { Counter, Gauge, type Registry } from 'prom-client';
import type pg from 'pg';
import type { DatabaseTarget } from './database-url.js';
import { parseLsn, type Lsn } from './lsn.js';
import { createPgPool } from './prisma-adapter.js';
import {
  isUsable,
  replicaLagMs,
  replicaProblems,
  type PrimarySample,
  type ReplicaView,
  type StandbySample,
} from './replica-choice.js';
import type { ReadinessCheck } from '../ops/health.js';
import type { Logger } from '../ops/logger.js';

export const DEFAULT_REPLICA_POLL_MS = 200;

export interface ReplicaMonitorOptions {
  primary: DatabaseTarget;
  replicas: Array<{ name: string; target: DatabaseTarget }>;
  /** DATABASE_REPLICA_MAX_LAG_MS: a replica further behind is skipped until it catches up. */
  maxLagMs: number;
  intervalMs?: number;
  registry?: Registry;
  logger?: Logger;
}

export interface ReplicaMonitor {
  /** Each replica as last seen, in the order given. */
  views(): readonly ReplicaView[];
  /** A read found the replica unreachable: skip it until the next poll says otherwise. */
  markDown(index: number, reason: string): void;
  /** The primary's WAL position now (`pg_current_wal_lsn()`), read on the monitor's pool. */
  primaryLsn(): Promise<Lsn>;
  /** Resolves once every replica and the primary have been polled once. */
  firstPoll: Promise<void>;
  /** `{ degraded }` while a replica is skipped; never fails (the primary has its own check). */
  check: ReadinessCheck;
  stop(): Promise<void>;
}

const STANDBY_SQL = `SELECT pg_is_in_recovery() AS standby,
  pg_last_wal_replay_lsn()::text AS replay_lsn,
  (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS replay_age_ms`;

interface ReplicaState {
  name: string;
  pool: pg.Pool;
  sample?: StandbySample;
  down?: string;
  /** As last settled; undefined before the first poll. */
  usable?: boolean;
}

/** A poll unanswered this long counts as down: reads stop going there at once. */
const stallMs = (intervalMs: number) => Math.max(1000, intervalMs * 5);

/** Monitoring connections give up sooner than request connections: a poll is tiny. */
const monitorTarget = (t: DatabaseTarget): DatabaseTarget => ({
  ...t,
  queryTimeoutMs: Math.min(t.queryTimeoutMs ?? 2000, 2000),
});

export function createReplicaMonitor(opts: ReplicaMonitorOptions): ReplicaMonitor {
  const intervalMs = opts.intervalMs ?? DEFAULT_REPLICA_POLL_MS;
  const { maxLagMs, logger } = opts;
  const primaryPool = createPgPool(monitorTarget(opts.primary), 2);
  const states: ReplicaState[] = opts.replicas.map((r) => ({
    name: r.name,
    pool: createPgPool(monitorTarget(r.target), 1),
  }));
  // Primary samples of the last few bounds' worth: enough to date any replica within reach.
  const history: PrimarySample[] = [];
  const keepMs = Math.max(maxLagMs * 3, 30_000);
  let stopped = false;
  const sleeping = new Set<() => void>();

  const view = (s: ReplicaState, now: number): ReplicaView => {
    const up = s.sample !== undefined && s.down === undefined;
    // Not judged before the primary's first sample: a commit age alone misjudges an idle primary.
    const lagMs = up && history.length > 0 ? replicaLagMs(s.sample!, history, now) : Infinity;
    return {
      name: s.name,
      up,
      usable: isUsable(up, lagMs, maxLagMs),
      replayLsn: s.sample?.replayLsn ?? null,
      lagMs,
    };
  };

  const transitions = opts.registry
    ? new Counter({
        name: 'db_replica_skips_total',
        help: 'Times a read replica became unusable (down, or behind by more than DATABASE_REPLICA_MAX_LAG_MS)',
        labelNames: ['replica'] as const,
        registers: [opts.registry],
      })
    : undefined;

  /** Logs and counts a replica turning usable or not, whoever looks first (a poll, a read). */
  function settle(s: ReplicaState, v: ReplicaView): void {
    // Judged once both the primary and this replica have answered (or failed) a poll.
    if (history.length === 0 || (s.sample === undefined && s.down === undefined)) return;
    if (v.usable === s.usable) return;
    s.usable = v.usable;
    if (v.usable) logger?.info({ replica: s.name }, 'read replica in use');
    else {
      transitions?.inc({ replica: s.name });
      logger?.warn(
        { replica: s.name, reason: s.down ?? `behind by ${Math.round(v.lagMs)} ms` },
        'read replica skipped',
      );
    }
  }

  /** Each replica now (a lag grows between polls), its transitions recorded. */
  const views = (): ReplicaView[] => {
    const now = performance.now();
    return states.map((s) => {
      const v = view(s, now);
      settle(s, v);
      return v;
    });
  };

  async function pollPrimary(): Promise<void> {
    const res = await primaryPool.query<{ lsn: string }>(
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    const at = performance.now();
    history.push({ lsn: parseLsn(res.rows[0]!.lsn), at });
    while (history.length > 1 && history[0]!.at < at - keepMs) history.shift();
  }

  async function pollReplica(i: number): Promise<void> {
    const s = states[i]!;
    try {
      const res = await s.pool.query<{
        standby: boolean;
        replay_lsn: string | null;
        replay_age_ms: number | null;
      }>(STANDBY_SQL);
      const row = res.rows[0]!;
      if (!row.standby) {
        // Promoted, or a URL naming a primary: its data is not this primary's past.
        s.down = 'not a standby';
        s.sample = undefined;
      } else {
        s.sample = {
          replayLsn: row.replay_lsn === null ? null : parseLsn(row.replay_lsn),
          replayAgeMs: row.replay_age_ms,
        };
        s.down = undefined;
      }
    } catch (err) {
      s.down = err instanceof Error ? err.message : String(err);
    }
  }

  /** A pause that stop() ends at once. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        sleeping.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      t.unref();
      sleeping.add(wake);
    });

  /** One poll after another (never two at once on one connection), every intervalMs. */
  async function loop(poll: () => Promise<void>, onStall: () => void, first: () => void) {
    while (!stopped) {
      const started = performance.now();
      const stall = setTimeout(onStall, stallMs(intervalMs));
      stall.unref();
      await poll().catch(() => undefined);
      clearTimeout(stall);
      first();
      await sleep(Math.max(0, intervalMs - (performance.now() - started)));
    }
  }

  const firstPolls: Array<Promise<void>> = [];
  const loops: Array<Promise<void>> = [];
  const start = (poll: () => Promise<void>, onStall: () => void) => {
    let done!: () => void;
    firstPolls.push(new Promise<void>((r) => (done = r)));
    loops.push(loop(poll, onStall, () => done()));
  };
  start(
    async () => {
      await pollPrimary();
      views();
    },
    () => undefined,
  );
  states.forEach((s, i) =>
    start(
      async () => {
        await pollReplica(i);
        views();
      },
      () => {
        s.down = `no answer within ${stallMs(intervalMs)} ms`;
        views();
      },
    ),
  );

  if (opts.registry) {
    const registers = [opts.registry];
    new Gauge({
      name: 'db_replica_up',
      help: 'A read replica answering as a standby (1) or not (0)',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const v of views()) this.set({ replica: v.name }, v.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far behind the primary a read replica is (absent while it is down)',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        this.reset();
        for (const v of views())
          if (v.up && Number.isFinite(v.lagMs)) this.set({ replica: v.name }, v.lagMs / 1000);
      },
    });
    new Gauge({
      name: 'db_replica_in_use',
      help: 'Reads may go to this replica (1): up and within DATABASE_REPLICA_MAX_LAG_MS',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const v of views()) this.set({ replica: v.name }, v.usable ? 1 : 0);
      },
    });
  }

  return {
    views,
    markDown(index, reason) {
      const s = states[index];
      if (!s || s.down !== undefined) return;
      s.down = reason;
      views();
    },
    async primaryLsn() {
      const res = await primaryPool.query<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      return parseLsn(res.rows[0]!.lsn);
    },
    firstPoll: Promise.all(firstPolls).then(() => undefined),
    async check() {
      const detail = replicaProblems(views(), maxLagMs);
      return detail === undefined ? undefined : { degraded: detail };
    },
    async stop() {
      stopped = true;
      for (const wake of [...sleeping]) wake();
      // The loops end after their poll in flight, which ending the pools cuts short.
      await Promise.allSettled([primaryPool.end(), ...states.map((s) => s.pool.end())]);
      await Promise.allSettled(loops);
    },
  };
}
