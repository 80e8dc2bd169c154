// A listing's total: exact up to EXACT_TOTAL_LIMIT matches, else the planner's estimate,
// rounded (docs/decisions/038-growth.md). The rule, then countOrEstimate on a real table.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { EXACT_TOTAL_LIMIT } from '@svc/types';
import {
  COUNT_UP_TO_ESTIMATE,
  countOrEstimate,
  matchTotal,
  roundEstimate,
  shouldCount,
} from '../src/data/match-total.js';
import { createPgPool } from '../src/data/prisma-adapter.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

describe('the total rule', () => {
  it('counts when the estimate leaves room for few matches, not past it', () => {
    expect([0, COUNT_UP_TO_ESTIMATE, COUNT_UP_TO_ESTIMATE + 1].map(shouldCount)).toEqual([true, true, false]);
  });

  it('is exact up to the limit, whatever the estimate', () => {
    expect(matchTotal(3_000, 6)).toEqual({ total: 6, exact: true });
    expect(matchTotal(12, EXACT_TOTAL_LIMIT)).toEqual({ total: EXACT_TOTAL_LIMIT, exact: true });
  });

  it('is the rounded estimate past the limit, never below what was counted', () => {
    expect(matchTotal(84_613, null)).toEqual({ total: 85_000, exact: false });
    expect(matchTotal(2_345, EXACT_TOTAL_LIMIT + 1)).toEqual({ total: 2_300, exact: false });
    expect(matchTotal(300, EXACT_TOTAL_LIMIT + 1)).toEqual({ total: EXACT_TOTAL_LIMIT + 1, exact: false });
  });

  it('rounds to two significant digits', () => {
    expect([0, 7.4, 99, 100, 1_049, 99_887, 999_000, 1_234_567].map(roundEstimate)).toEqual([
      0, 7, 99, 100, 1_000, 100_000, 1_000_000, 1_200_000,
    ]);
  });
});

describe('countOrEstimate', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  const total = (where: string, params: unknown[] = []) =>
    countOrEstimate(pool, 'items_count', `items WHERE ${where}`, params);

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'match-total-'));
    mkdirSync(path.join(dir, '0001_items'));
    writeFileSync(path.join(dir, '0001_items', 'migration.sql'), 'CREATE TABLE items (id int PRIMARY KEY, kind text NOT NULL)');
    db = await createTestDatabase(dir);
    pool = createPgPool(db.target, 2);
    // 20,000 items: kind 'common' for 19,990 of them, 'rare' for 10.
    await pool.query(
      `INSERT INTO items SELECT i, CASE WHEN i % 2000 = 0 THEN 'rare' ELSE 'common' END FROM generate_series(1, 20000) i`,
    );
    await pool.query('ANALYZE items');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('counts few matches exactly, with the values bound', async () => {
    expect(await total('kind = $1', ['rare'])).toEqual({ total: 10, exact: true });
    expect(await total('kind = $1', ['none'])).toEqual({ total: 0, exact: true });
    expect(await total('id <= $1', [EXACT_TOTAL_LIMIT])).toEqual({ total: EXACT_TOTAL_LIMIT, exact: true });
  });

  it('estimates many matches, rounded, and says so', async () => {
    const all = await total('true');
    expect(all.exact).toBe(false);
    expect(all.total).toBe(20_000);
    const common = await total('kind = $1', ['common']);
    expect(common).toEqual({ total: 20_000, exact: false });
  });

  it('counts to one past the limit when the estimate was low, and says it is not exact', async () => {
    // Equality on an expression without statistics: the planner guesses 0.5 % (100 rows),
    // 6,666 match; the count stops one past the limit.
    expect(await total('id % $1 = $2', [3, 0])).toEqual({ total: EXACT_TOTAL_LIMIT + 1, exact: false });
  });
});
