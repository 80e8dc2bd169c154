import { describe, expect, it } from '@jest/globals';
import { isDependencyUnavailable } from '../src/ops/dependency-errors.js';

describe('isDependencyUnavailable', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [new Error('Connection is closed.')],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    [Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' })],
    [new Error('wrapped', { cause: Object.assign(new Error('y'), { code: 'P1001' }) })],
    [Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })])],
    // What Prisma 6 with the pg driver adapter throws when PostgreSQL shuts down under a raw
    // query (captured from a terminated backend).
    [
      Object.assign(new Error('Raw query failed. Code: `57P01`.'), {
        name: 'PrismaClientKnownRequestError',
        code: 'P2010',
        meta: {
          driverAdapterError: {
            name: 'DriverAdapterError',
            cause: { originalCode: '57P01', kind: 'postgres', code: '57P01', severity: 'FATAL' },
          },
        },
      }),
    ],
    [Object.assign(new Error('the database system is shutting down'), { code: '57P03' })],
    [Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    [Object.assign(new Error('x'), { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '08006' } } } })],
    // ioredis Cluster with a master down (captured from test/redis-cluster.test.ts's cluster).
    [new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 15495 127.0.0.1:33855')],
    [new Error('CLUSTERDOWN The cluster is down')],
    [new Error("Cluster isn't ready and enableOfflineQueue options is false")],
    [Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' })],
  ])('recognises %s', (err) => {
    expect(isDependencyUnavailable(err)).toBe(true);
  });

  it.each([[new Error('boom')], [new TypeError('x is undefined')], [null], ['text'], [{ code: 'P2002' }], [{ code: '23505' }], [{ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '22021' } } } }]])(
    'leaves other errors alone: %s',
    (err) => {
      expect(isDependencyUnavailable(err)).toBe(false);
    },
  );
});
