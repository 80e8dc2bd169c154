// The total of a listing's matches (docs/decisions/038-growth.md): an exact count of at most
// EXACT_TOTAL_LIMIT matches, else PostgreSQL's estimate. Counting every match of a common
// word, or of a whole table, reads as many rows as match (1M sites: ~500 ms), where the page
// itself reads one page of an index; the estimate costs one plan. So: ask the planner
// (EXPLAIN); when it leaves room for few matches, count them, stopping one past the limit.
import type pg from 'pg';
import { EXACT_TOTAL_LIMIT } from '@svc/types';

export interface MatchTotal {
  total: number;
  /** false: `total` is the planner's estimate, rounded to two significant digits. */
  exact: boolean;
}

/**
 * Count only when the estimate leaves room for few matches. The planner overestimates rare
 * words (one outside its statistics counts as half the least common it knows) and is within
 * a few per cent for common words and tags: a margin of 4 keeps rare searches exact.
 */
export const COUNT_UP_TO_ESTIMATE = 4 * EXACT_TOTAL_LIMIT;

export const shouldCount = (estimate: number): boolean => estimate <= COUNT_UP_TO_ESTIMATE;

/** `n` rounded to two significant digits (84,613 → 85,000): an estimate shows no false precision. */
export function roundEstimate(n: number): number {
  if (n < 100) return Math.max(0, Math.round(n));
  const unit = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / unit) * unit;
}

/**
 * `counted`: the count stopped at EXACT_TOTAL_LIMIT + 1, or null when not counted. Past the
 * limit a total is at least what was counted.
 */
export function matchTotal(estimate: number, counted: number | null): MatchTotal {
  if (counted !== null && counted <= EXACT_TOTAL_LIMIT) return { total: counted, exact: true };
  return { total: Math.max(roundEstimate(estimate), counted ?? 0), exact: false };
}

/** A prepared statement's name for a SQL text: the same text gets the same name everywhere. */
const statementName = (prefix: string, sql: string) => {
  let h = 0;
  for (let i = 0; i < sql.length; i++) h = (Math.imul(31, h) + sql.charCodeAt(i)) | 0;
  return `${prefix}_${(h >>> 0).toString(36)}`;
};

/**
 * The total of `SELECT … FROM <from>`: `from` is the table and its WHERE clause, its values
 * bound as `params` ($1…). The count is a prepared statement named after `prefix`; EXPLAIN
 * is not prepared (it plans with the values, as a first execution does).
 */
export async function countOrEstimate(
  pool: Pick<pg.Pool, 'query'>,
  prefix: string,
  from: string,
  params: unknown[],
): Promise<MatchTotal> {
  const plan = await pool.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from}`,
    params,
  );
  const estimate = plan.rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
  if (!shouldCount(estimate)) return matchTotal(estimate, null);
  const text = `SELECT count(*)::int AS total FROM (SELECT 1 FROM ${from} LIMIT $${params.length + 1}) m`;
  const res = await pool.query<{ total: number }>({
    name: statementName(prefix, text),
    text,
    values: [...params, EXACT_TOTAL_LIMIT + 1],
  });
  return matchTotal(estimate, res.rows[0]!.total);
}
