// Creating a service's database and schema, the Prisma CLI's migration adapter, and
// applying migration SQL directly (tests: a fresh schema per test file in milliseconds).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { DEFAULT_DATABASE_URL, resolveDatabaseTarget, type DatabaseTarget } from './database-url.js';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function ensureDatabaseAndSchema(t: DatabaseTarget): Promise<void> {
  const { host, port, user, password } = t;
  const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [t.database]);
    if (found.rowCount === 0) {
      await admin
        .query(`CREATE DATABASE ${quoteIdent(t.database)}`)
        .catch((err: { code?: string }) => {
          if (err.code !== '42P04') throw err; // created meanwhile by a parallel caller
        });
    }
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ host, port, user, password, database: t.database });
  await db.connect();
  try {
    await db
      .query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(t.schema)}`)
      .catch((err: { code?: string }) => {
        if (err.code !== '23505' && err.code !== '42P06') throw err;
      });
  } finally {
    await db.end();
  }
}

/**
 * The adapter prisma.config.ts hands the Prisma CLI. Discrete connection fields, not a
 * connection string, or `migrate dev`'s shadow database connects to the main database;
 * search_path puts the tables and _prisma_migrations in the service's own schema.
 */
export async function migrationAdapter(
  ownUrlEnv: string,
  defaultSchema: string,
): Promise<PrismaPg> {
  const target = resolveDatabaseTarget(
    process.env[ownUrlEnv],
    process.env.DATABASE_URL,
    defaultSchema,
  );
  await ensureDatabaseAndSchema(target);
  const { schema, ...conn } = target;
  return new PrismaPg({ ...conn, options: `-c search_path=${quoteIdent(schema)}` }, { schema });
}

/**
 * The settings every service's prisma.config.ts passes to `defineConfig`: the WebAssembly
 * schema engine through the pg driver adapter, so `prisma generate` and migrations work
 * without downloading engine binaries.
 */
export function prismaCliConfig(ownUrlEnv: string, defaultSchema: string) {
  // The CLI parses `url = env("DATABASE_URL")` although the adapter does the connecting.
  process.env.DATABASE_URL ||= DEFAULT_DATABASE_URL;
  return {
    experimental: { adapter: true },
    engine: 'js',
    schema: 'prisma/schema.prisma',
    adapter: () => migrationAdapter(ownUrlEnv, defaultSchema),
  } as const;
}

/**
 * The statements `prisma migrate deploy` runs for a migration file: through the pg driver
 * adapter it cuts the file at EVERY `;` — in comments, strings and function bodies too
 * (`executeScript` of @prisma/adapter-pg). Tests apply migrations the same way, so a file
 * that production would break on (a `;` in a comment, say) fails the tests as well; write a
 * `;` inside a function body as the escape `\x3B` in an `E''` string.
 */
export function splitLikePrismaMigrate(script: string): string[] {
  return script
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Runs every prisma/migrations/<name>/migration.sql, in order, inside `target.schema`. */
export async function applyMigrationSql(
  target: DatabaseTarget,
  migrationsDir: string,
  /** apply as this role (SET ROLE), e.g. a test's non-superuser owner */
  asRole?: string,
): Promise<void> {
  const entries = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const { host, port, user, password, database } = target;
  const db = new pg.Client({ host, port, user, password, database });
  await db.connect();
  try {
    if (asRole !== undefined) await db.query(`SET ROLE ${quoteIdent(asRole)}`);
    await db.query(`SET search_path TO ${quoteIdent(target.schema)}`);
    for (const name of entries) {
      const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      for (const statement of splitLikePrismaMigrate(sql)) await db.query(statement);
    }
  } finally {
    await db.end();
  }
}

export async function dropSchema(target: DatabaseTarget): Promise<void> {
  const { host, port, user, password, database } = target;
  const db = new pg.Client({ host, port, user, password, database });
  await db.connect();
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(target.schema)} CASCADE`);
  } finally {
    await db.end();
  }
}
