// The pg driver adapter for a service's PrismaClient (no query-engine binary):
// `new PrismaClient({ adapter: createPgAdapter(target) })`.
import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseTarget } from './database-url.js';

export function createPgAdapter(target: DatabaseTarget, options: { max?: number } = {}): PrismaPg {
  const { schema, ...conn } = target;
  return new PrismaPg(
    {
      ...conn,
      max: options.max ?? 10,
      // Fail fast while PostgreSQL is down: the request gets a 503, not a hang.
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      // Model queries are qualified with `schema`; raw SQL finds its tables by search_path.
      options: `-c search_path="${schema.replace(/"/g, '""')}"`,
    },
    { schema },
  );
}
