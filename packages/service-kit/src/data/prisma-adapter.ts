// The pg driver adapter for a service's PrismaClient (no query-engine binary):
// `new PrismaClient({ adapter: createPgAdapter(target) })`.
// Hot read paths that skip Prisma use `createPgPool(target)` with the same settings.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { DatabaseTarget } from './database-url.js';

export const DEFAULT_PG_QUERY_TIMEOUT_MS = 10_000;

type QueryMethod = (this: BoundedClient, ...args: unknown[]) => unknown;
const plainQuery = pg.Client.prototype.query as unknown as QueryMethod;

/**
 * A client whose every query is bounded: one still unanswered after `queryTimeoutMs` ends
 * its connection. Why not pg's own `query_timeout`: it fails the query but leaves the
 * connection waiting for the answer, so on a connection gone half-open (a failover, a
 * dropped route: nothing comes back, nothing says so) every later query fails too and the
 * pool slot is held until TCP gives up, some 15 minutes. Ending the connection fails its
 * queries with "Connection terminated unexpectedly", as a cut would, and the pool and the
 * adapter drop it (see the adapter's patch for transactions); the next query opens a new one.
 * The pool constructs it with its own options, which carry `queryTimeoutMs`.
 */
class BoundedClient extends pg.Client {
  readonly queryTimeoutMs: number;
  constructor(config: pg.ClientConfig & { queryTimeoutMs?: number } = {}) {
    super(config);
    this.queryTimeoutMs = config.queryTimeoutMs ?? DEFAULT_PG_QUERY_TIMEOUT_MS;
  }
}
const boundedQuery: QueryMethod = function (...args) {
  const { stream } = (this as unknown as { connection: { stream: { destroy(): void } } })
    .connection;
  const timer = setTimeout(() => stream.destroy(), this.queryTimeoutMs).unref();
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    // pg-pool's pool.query passes a callback.
    args[last] = (err: unknown, res: unknown) => {
      clearTimeout(timer);
      (callback as (e: unknown, r: unknown) => void)(err, res);
    };
    return plainQuery.apply(this, args);
  }
  const result = plainQuery.apply(this, args) as { then?: unknown } | undefined;
  if (typeof result?.then === 'function') {
    const done = () => clearTimeout(timer);
    (result as Promise<unknown>).then(done, done);
  } else clearTimeout(timer); // a submittable (cursor, stream): not used here, not bounded
  return result;
};
(BoundedClient.prototype as unknown as { query: QueryMethod }).query = boundedQuery;

function poolConfig(target: DatabaseTarget, max: number): pg.PoolConfig {
  const { schema, ...conn } = target;
  return {
    ...conn, // queryTimeoutMs included: BoundedClient reads it
    max,
    Client: BoundedClient,
    // Fail fast while PostgreSQL is down: the request gets a 503, not a hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // Model queries are qualified with `schema`; raw SQL finds its tables by search_path.
    options: `-c search_path="${schema.replace(/"/g, '""')}"`,
  };
}

export function createPgAdapter(target: DatabaseTarget, options: { max?: number } = {}): PrismaPg {
  return new PrismaPg(poolConfig(target, options.max ?? 10), { schema: target.schema });
}

/** A plain pg pool on the service's schema, for read paths where Prisma's per-query CPU shows. */
export function createPgPool(target: DatabaseTarget, max = 10): pg.Pool {
  const pool = new pg.Pool(poolConfig(target, max));
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}
