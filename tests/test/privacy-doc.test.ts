// docs/privacy.md lists every piece of personal data the platform holds. A new table, or a
// column named for a person's identity, cannot be added without saying there where it lives
// and when it goes: every table of every service's schema (the Prisma models and the tables
// the migrations create) must be named as `schema.table`, and each identity column on a
// line that names its table.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICES, type ServiceName } from '@svc/service-kit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = 'docs/privacy.md';

/** Words of a column name (split on `_`) that say it holds who someone is. */
const IDENTITY_WORDS = new Set([
  'user',
  'email',
  'username',
  'ip',
  'network',
  'author',
  'owner',
  'actor',
  'sender',
  'reporter',
  'liker',
  'by',
]);

interface Table {
  schema: string;
  name: string;
  columns: string[];
}

/** Models of a Prisma schema: table name (`@@map`) and column names (`@map`), relations left out. */
function prismaTables(schemaText: string): Array<{ name: string; columns: string[] }> {
  const blocks = [...schemaText.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)];
  const models = new Set(blocks.map((b) => b[1]!));
  return blocks.map(([, model, body]) => {
    const columns: string[] = [];
    for (const raw of body!.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('//') || line.startsWith('@@')) continue;
      const field = /^(\w+)\s+(\w+)/.exec(line);
      if (!field || models.has(field[2]!)) continue;
      columns.push(/@map\("([^"]+)"\)/.exec(line)?.[1] ?? field[1]!);
    }
    return { name: /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? model!, columns };
  });
}

/** Tables the migrations create and do not drop again. */
function migrationTables(dir: string): string[] {
  const created = new Set<string>();
  for (const migration of readdirSync(dir, { withFileTypes: true })) {
    if (!migration.isDirectory()) continue;
    const sql = readFileSync(path.join(dir, migration.name, 'migration.sql'), 'utf8');
    for (const m of sql.matchAll(/CREATE TABLE "(\w+)"/g)) created.add(m[1]!);
    for (const m of sql.matchAll(/DROP TABLE (?:IF EXISTS )?"(\w+)"/g)) created.delete(m[1]!);
  }
  return [...created];
}

/** Every table of every service that owns a schema. */
function allTables(): Table[] {
  const tables: Table[] = [];
  for (const service of readdirSync(path.join(ROOT, 'services'))) {
    const prismaDir = path.join(ROOT, 'services', service, 'prisma');
    let schemaText: string;
    try {
      schemaText = readFileSync(path.join(prismaDir, 'schema.prisma'), 'utf8');
    } catch {
      continue; // no database
    }
    const schema = SERVICES[service as ServiceName]?.schema;
    if (!schema) throw new Error(`services/${service} has a Prisma schema, the kit's SERVICES no schema`);
    const models = prismaTables(schemaText);
    for (const model of models) tables.push({ schema, ...model });
    for (const name of migrationTables(path.join(prismaDir, 'migrations'))) {
      if (!models.some((m) => m.name === name)) tables.push({ schema, name, columns: [] });
    }
  }
  return tables;
}

const isIdentityColumn = (column: string) => column.split('_').some((w) => IDENTITY_WORDS.has(w));

describe('docs/privacy.md', () => {
  const doc = readFileSync(path.join(ROOT, DOC), 'utf8');
  const lines = doc.split('\n');
  const tables = allTables();

  it('reads every service schema', () => {
    const names = tables.map((t) => `${t.schema}.${t.name}`);
    // Fails if the parsing finds nothing (the checks below would then pass for nothing).
    expect(names).toEqual(
      expect.arrayContaining(['auth.users', 'app_store.app_reports', 'sites.boosts', 'chat.messages']),
    );
    expect(tables.find((t) => t.name === 'users')?.columns).toEqual(
      expect.arrayContaining(['email', 'username', 'created_at']),
    );
    expect(tables.find((t) => t.name === 'app_reports')?.columns).toContain('reporter_network');
    expect(tables.find((t) => t.name === 'app_reports')?.columns).not.toContain('app'); // a relation
  });

  it('names every table of every schema', () => {
    const missing = tables.map((t) => `${t.schema}.${t.name}`).filter((t) => !doc.includes(`\`${t}\``));
    expect(missing).toEqual([]);
  });

  it('names each identity column on a line that names its table', () => {
    const missing: string[] = [];
    for (const table of tables) {
      const ref = `\`${table.schema}.${table.name}\``;
      const rows = lines.filter((l) => l.includes(ref));
      for (const column of table.columns.filter(isIdentityColumn)) {
        if (!rows.some((r) => r.includes(`\`${column}\``)))
          missing.push(`${table.schema}.${table.name}.${column}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('recognises identity columns by their words', () => {
    const identities = ['user_id', 'email', 'ip_hash', 'reporter_network', 'submitted_by', 'liker_key', 'actor'];
    const others = ['id', 'description', 'created_at', 'key_hash', 'hot_score'];
    expect(identities.filter((c) => !isIdentityColumn(c))).toEqual([]);
    expect(others.filter(isIdentityColumn)).toEqual([]);
  });
});
