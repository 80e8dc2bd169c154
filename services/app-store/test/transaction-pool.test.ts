// A PostgreSQL connection that dies inside a Prisma interactive transaction must go back
// to the pool (which drops it), or each such death keeps a pool slot for good and the
// service never recovers. @prisma/adapter-pg 6.19.3 kept it: Prisma's ROLLBACK fails on
// the dead connection and it never calls the adapter's rollback(). Fixed by our patch of
// the adapter (patches/); a pool of one makes a kept slot visible at once.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { createPgAdapter } from '@svc/service-kit';
import {
  TEST_DATABASE_URL,
  createTestDatabase,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { migrationsDir } from './harness.js';

let database: TestDatabase;
let db: PrismaClient;
let admin: pg.Client;
let proxy: TcpProxy;
beforeAll(async () => {
  database = await createTestDatabase(migrationsDir);
  proxy = await startTcpProxy(5432);
  db = new PrismaClient({
    adapter: createPgAdapter({ ...database.target, host: '127.0.0.1', port: proxy.port }, { max: 1 }),
  });
  admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await db.$disconnect();
  await proxy.close();
  await database.drop();
});

const ends = {
  'PostgreSQL ends the backend (57P01)': (marker: string) =>
    admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%${marker}%' AND pid <> pg_backend_pid()`,
    ),
  'the network connection is cut': async () => {
    await proxy.cut();
    await proxy.restore();
  },
};

it.each(Object.keys(ends) as Array<keyof typeof ends>)(
  'the only pool connection comes back after it dies inside a transaction: %s',
  async (how) => {
    const marker = `tx-death-${Object.keys(ends).indexOf(how)}`;
    await db.$queryRaw`SELECT 1`;
    const inTransaction = db
      .$transaction(async (tx) => {
        await tx.$queryRawUnsafe(`SELECT pg_sleep(2), '${marker}'`);
      })
      .then(
        () => 'committed',
        () => 'failed',
      );
    await new Promise((r) => setTimeout(r, 400));
    await ends[how](marker);
    expect(await inTransaction).toBe('failed');
    const next = await Promise.race([
      db.$queryRaw<Array<{ x: number }>>`SELECT 2 AS x`.then((rows) => rows[0]!.x),
      new Promise((r) => setTimeout(() => r('pool exhausted'), 6000)),
    ]);
    expect(next).toBe(2);
  },
  20_000,
);
