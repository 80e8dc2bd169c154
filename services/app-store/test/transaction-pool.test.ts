// A PostgreSQL connection that dies inside a Prisma interactive transaction must go back
// to the pool (which drops it), or each such death keeps a pool slot for good and the
// service never recovers. @prisma/adapter-pg 6.19.3 kept it: Prisma's ROLLBACK fails on
// the dead connection and it never calls the adapter's rollback(). Fixed by our patch of
// the adapter (patches/); a pool of one makes a kept slot visible at once. A connection
// gone half-open (nothing comes back, nothing says so) is ended by the kit's query bound
// (PG_QUERY_TIMEOUT_MS, prisma-adapter.ts), here 3 s, and then handled like a cut one.
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
    adapter: createPgAdapter(
      { ...database.target, host: '127.0.0.1', port: proxy.port, queryTimeoutMs: 3000 },
      { max: 1 },
    ),
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
  // Only the open connection stops forwarding: new ones work, as after a failover.
  'the network connection goes half-open': async () => proxy.stallOpen(),
};

/** The next query's answer, or 'pool exhausted' when no connection came free in time. */
const nextQuery = () =>
  Promise.race([
    db.$queryRaw<Array<{ x: number }>>`SELECT 2 AS x`.then((rows) => rows[0]!.x),
    new Promise((r) => setTimeout(() => r('pool exhausted'), 6000)),
  ]);

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
    expect(await nextQuery()).toBe(2);
  },
  20_000,
);

it('a query outside a transaction on a connection gone half-open fails, and the pool opens a new one', async () => {
  await db.$queryRaw`SELECT 1`;
  const query = db.$queryRawUnsafe(`SELECT pg_sleep(1), 'half-open'`).then(
    () => 'answered',
    (err: Error) => err.message,
  );
  await new Promise((r) => setTimeout(r, 300));
  proxy.stallOpen();
  expect(await query).toMatch(/terminated/i);
  expect(await nextQuery()).toBe(2);
}, 20_000);
