// Which database a read goes to (docs/decisions/037-read-replicas.md). A service names each
// of its reads once, with its routing, and asks the router for every read:
// - 'replica': a read that tolerates a little lag (a public listing, a detail). It goes to a
//   usable replica; with a caller who wrote recently, only to one that has replayed that
//   caller's last write (read-your-writes across pods: the primary's WAL position after the
//   write is kept in Redis for a few lag bounds);
// - 'cache': the load of a process-wide cache, which the process clears after its own
//   writes: a replica only once it has replayed this process's last write, so the reload
//   after a write never stores what came before it;
// - 'primary': always the primary (moderation tools, reads a write depends on).
// `C` is whatever the service reads with (a store on a Prisma client, a reader on a pg pool):
// one for the primary and one per replica. Without replicas every read goes to the primary
// and nothing else happens: no Redis key, no WAL position, no monitor.
import { Counter, type Registry } from 'prom-client';
import type { DatabaseTarget } from './database-url.js';
import { lsnKey, parseLsnKey, type Lsn } from './lsn.js';
import { chooseReplica } from './replica-choice.js';
import { createReplicaMonitor, type ReplicaMonitor } from './replica-monitor.js';
import { isDependencyUnavailable } from '../ops/dependency-errors.js';
import type { ReadinessCheck } from '../ops/health.js';
import type { Logger } from '../ops/logger.js';
import type { Redis } from '../redis/redis.js';

export type ReadRouting = 'replica' | 'cache' | 'primary';

export const DEFAULT_REPLICA_MAX_LAG_MS = 10_000;

/** A caller's WAL position outlives the lag bound a few times over: past it, any usable
 * replica has the write (it is no further behind than the bound). */
export const CALLER_LSN_TTL_BOUNDS = 3;

export interface ReplicaClient<C> {
  /** `host:port`, the `replica` label of the metrics (replicaName). */
  name: string;
  target: DatabaseTarget;
  client: C;
  /** Ends the replica's connections (the router's close calls it). */
  close?: () => Promise<void>;
}

export interface ReadRouterOptions<C, N extends string> {
  /** The Redis key of callers' positions is per service: two primaries' positions do not compare. */
  service: string;
  routing: Record<N, ReadRouting>;
  primary: C;
  /** Needed with replicas: the monitor reads the primary's WAL position. */
  primaryTarget?: DatabaseTarget;
  replicas?: Array<ReplicaClient<C>>;
  /** DATABASE_REPLICA_MAX_LAG_MS. */
  maxLagMs?: number;
  /** The request-path client: callers' positions. Needed with replicas. */
  redis?: Redis;
  redisPrefix?: string;
  registry?: Registry;
  logger?: Logger;
  /** How often the monitor polls (DEFAULT_REPLICA_POLL_MS). */
  pollMs?: number;
}

export interface ReadOptions<T> {
  /**
   * An answer from a replica this judges incomplete (a detail not found: the thing may have
   * been made a moment ago, by anyone) is asked of the primary again.
   */
  confirmOnPrimary?: (value: T) => boolean;
}

export interface ReadRouter<C, N extends string> {
  readonly primary: C;
  /** False without replicas: every read is the primary's. */
  readonly replicated: boolean;
  /**
   * Runs `work` on the client the read's routing picks. A replica that fails to answer
   * (unreachable, or cancelled for a conflict with recovery) is skipped and the read is
   * made on the primary: the caller sees no error.
   */
  read<T>(
    name: N,
    caller: string | undefined,
    work: (client: C) => Promise<T>,
    options?: ReadOptions<T>,
  ): Promise<T>;
  /**
   * After a committed write (before clearing a cache, before answering): keeps the primary's
   * WAL position for `caller` in Redis and for this process's cache loads. No-op without
   * replicas; a failure is logged, never thrown (the write is done).
   */
  wrote(caller: string | undefined): Promise<void>;
  /** `{ postgres_replicas }` with replicas, else empty: spread into the app's readiness. */
  readonly readiness: Record<string, ReadinessCheck>;
  readonly monitor?: ReplicaMonitor;
  /** Stops the monitor and closes the replicas' clients (not the primary's). */
  close(): Promise<void>;
}

/** Keeps the larger position (concurrent writes of one caller may finish out of order). */
const KEEP_LATER_LSN = `
local cur = redis.call('GET', KEYS[1])
if cur and string.len(cur) == string.len(ARGV[1]) and cur >= ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Errors of a replica that the primary may not have: it is gone, or it cancelled the read. */
export function replicaCannotServe(err: unknown, depth = 0): boolean {
  if (isDependencyUnavailable(err)) return true;
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as {
    code?: unknown;
    originalCode?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  // 40001: "canceling statement due to conflict with recovery" (a read on a standby only).
  if (e.code === '40001' || e.originalCode === '40001') return true;
  if (typeof e.message === 'string' && /conflict with recovery/i.test(e.message)) return true;
  return (
    replicaCannotServe(e.meta?.driverAdapterError, depth + 1) ||
    replicaCannotServe(e.cause, depth + 1)
  );
}

function readsCounter(registry: Registry | undefined): Counter<'read' | 'target'> | undefined {
  if (!registry) return undefined;
  const existing = registry.getSingleMetric('db_reads_total');
  if (existing) return existing as Counter<'read' | 'target'>;
  return new Counter({
    name: 'db_reads_total',
    help: 'Reads by name and where they went (primary or replica)',
    labelNames: ['read', 'target'] as const,
    registers: [registry],
  });
}

export function createReadRouter<C, N extends string>(
  opts: ReadRouterOptions<C, N>,
): ReadRouter<C, N> {
  const { primary, routing, logger } = opts;
  const replicas = opts.replicas ?? [];
  const reads = readsCounter(opts.registry);
  const count = (name: string, target: 'primary' | 'replica') => reads?.inc({ read: name, target });

  if (replicas.length === 0) {
    return {
      primary,
      replicated: false,
      read: (name, _caller, work) => {
        count(name, 'primary');
        return work(primary);
      },
      wrote: async () => {},
      readiness: {},
      close: async () => {},
    };
  }

  if (!opts.primaryTarget || !opts.redis)
    throw new Error('createReadRouter: replicas need primaryTarget and redis');
  const redis = opts.redis;
  const maxLagMs = opts.maxLagMs ?? DEFAULT_REPLICA_MAX_LAG_MS;
  const ttlMs = maxLagMs * CALLER_LSN_TTL_BOUNDS;
  const keyOf = (caller: string) => `${opts.redisPrefix ?? ''}db-lsn:${opts.service}:${caller}`;
  const monitor = createReplicaMonitor({
    primary: opts.primaryTarget,
    replicas: replicas.map((r) => ({ name: r.name, target: r.target })),
    maxLagMs,
    intervalMs: opts.pollMs,
    registry: opts.registry,
    logger,
  });
  /** This process's last write: cache loads wait for a replica past it. */
  let processLsn: Lsn | undefined;
  let turn = 0;

  /** The caller's last write; null when unknown (Redis down): then only the primary is safe. */
  async function callerLsn(caller: string): Promise<Lsn | undefined | null> {
    try {
      return parseLsnKey(await redis.get(keyOf(caller)));
    } catch (err) {
      logger?.debug({ err }, 'caller WAL position unavailable: reading the primary');
      return null;
    }
  }

  async function onPrimary<T>(name: string, work: (client: C) => Promise<T>): Promise<T> {
    count(name, 'primary');
    return work(primary);
  }

  return {
    primary,
    replicated: true,
    monitor,
    async read<T>(
      name: N,
      caller: string | undefined,
      work: (client: C) => Promise<T>,
      options?: ReadOptions<T>,
    ): Promise<T> {
      const route = routing[name];
      if (route === 'primary') return onPrimary(name, work);
      let minLsn: Lsn | undefined;
      if (route === 'cache') minLsn = processLsn;
      else if (caller !== undefined) {
        const lsn = await callerLsn(caller);
        if (lsn === null) return onPrimary(name, work);
        minLsn = lsn;
      }
      const index = chooseReplica(monitor.views(), minLsn, turn++ % replicas.length);
      if (index === undefined) return onPrimary(name, work);
      const replica = replicas[index]!;
      let value: T;
      try {
        value = await work(replica.client);
        count(name, 'replica');
      } catch (err) {
        if (!replicaCannotServe(err)) throw err;
        monitor.markDown(index, err instanceof Error ? err.message : String(err));
        return onPrimary(name, work);
      }
      if (options?.confirmOnPrimary?.(value)) return onPrimary(name, work);
      return value;
    },
    async wrote(caller) {
      let lsn: Lsn;
      try {
        // With synchronous_commit on (the default) a commit's record is written before the
        // commit returns, so the position read now is at or past it.
        lsn = await monitor.primaryLsn();
      } catch (err) {
        logger?.warn({ err }, 'primary WAL position unavailable after a write');
        return;
      }
      if (processLsn === undefined || lsn > processLsn) processLsn = lsn;
      if (caller === undefined) return;
      try {
        await redis.eval(KEEP_LATER_LSN, 1, keyOf(caller), lsnKey(lsn), ttlMs);
      } catch (err) {
        // Reads of this caller then find Redis down too, and go to the primary.
        logger?.warn({ err }, 'caller WAL position not stored');
      }
    },
    readiness: { postgres_replicas: monitor.check },
    async close() {
      await monitor.stop();
      await Promise.allSettled(replicas.map((r) => r.close?.()));
    },
  };
}
