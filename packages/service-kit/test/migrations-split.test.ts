import { expect, it } from '@jest/globals';
import { splitLikePrismaMigrate } from '../src/data/migrations.js';

it('cuts a migration where prisma migrate deploy does: at every ;, comments included', () => {
  const sql = '-- one; two\nCREATE TABLE a (x int);\n\nCREATE FUNCTION f() RETURNS int AS E\'SELECT 1\\x3B\' LANGUAGE sql;\n';
  expect(splitLikePrismaMigrate(sql)).toEqual([
    '-- one',
    'two\nCREATE TABLE a (x int)',
    "CREATE FUNCTION f() RETURNS int AS E'SELECT 1\\x3B' LANGUAGE sql",
  ]);
});
