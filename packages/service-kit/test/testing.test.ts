import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

describe('createTestDatabase', () => {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  });

  it('gives each caller its own schema with the migrations applied in order', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    await mkdir(path.join(dir, '001_a'));
    await mkdir(path.join(dir, '002_b'));
    await writeFile(path.join(dir, '001_a', 'migration.sql'), 'CREATE TABLE things (id int primary key);');
    await writeFile(path.join(dir, '002_b', 'migration.sql'), 'ALTER TABLE things ADD COLUMN name text;');
    const [a, b] = await Promise.all([createTestDatabase(dir), createTestDatabase(dir)]);
    made.push(a!, b!);
    expect(a!.target.schema).not.toBe(b!.target.schema);
    const client = new pg.Client({ ...a!.target });
    await client.connect();
    const cols = await client.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'things' ORDER BY 1`,
      [a!.target.schema],
    );
    await client.end();
    expect(cols.rows.map((r) => r.column_name)).toEqual(['id', 'name']);
  });
});
