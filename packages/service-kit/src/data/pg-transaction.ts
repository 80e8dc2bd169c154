// BEGIN … COMMIT on one client of a plain pg pool, for the writes that skip Prisma (the
// outbox relays, the sites submission). A client that cannot roll back is discarded, not
// returned to the pool.
import type pg from 'pg';

/**
 * Runs `work` in a transaction on one pooled client. On failure: ROLLBACK and rethrow; a
 * client that cannot even roll back (its connection is gone) is released with the error,
 * so the pool discards it instead of handing it out again.
 */
export async function inPgTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client's connection may die (PostgreSQL restarts): the pool only listens
  // to idle clients, and an unheard 'error' event would crash the process. The query in
  // flight fails on its own.
  const onError = () => {};
  client.on('error', onError);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
