// The driver adapter the Prisma CLI uses to migrate one service's PostgreSQL schema.
// Discrete connection fields (not connectionString), or `migrate dev`'s shadow database
// would connect to the main database; search_path puts tables and _prisma_migrations
// in the service's own schema. The schema (and database) are created if missing.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

export function resolveServiceDatabase(envName, defaultSchema, env = process.env) {
  const raw = env[envName] || env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/svc';
  const url = new URL(raw);
  const schema = url.searchParams.get('schema') || (env[envName] ? 'public' : defaultSchema);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password || ''),
    database: decodeURIComponent(url.pathname.slice(1) || 'svc'),
    schema,
  };
}

export async function ensureDatabaseAndSchema({ host, port, user, password, database, schema }) {
  const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ host, port, user, password, database });
  await db.connect();
  try {
    await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
  } finally {
    await db.end();
  }
}

// The CLI parses `url = env("DATABASE_URL")` in schema.prisma even though the adapter
// does the connecting: give it the default when unset.
process.env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/svc';

export async function migrationAdapter(envName, defaultSchema) {
  const target = resolveServiceDatabase(envName, defaultSchema);
  await ensureDatabaseAndSchema(target);
  const { schema, ...conn } = target;
  return new PrismaPg({ ...conn, options: `-c search_path="${schema}"` });
}
