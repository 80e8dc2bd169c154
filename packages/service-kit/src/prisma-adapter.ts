// The pg driver adapter for a service's PrismaClient (no query-engine binary):
// `new PrismaClient({ adapter: createPgAdapter(target) })`.
// Hot read paths that skip Prisma use `createPgPool(target)` with the same settings.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { DatabaseTarget } from './database-url.js';

function poolConfig(target: DatabaseTarget, max: number): pg.PoolConfig {
  const { schema, ...conn } = target;
  return {
    ...conn,
    max,
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
