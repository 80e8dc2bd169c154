import { describe, expect, it } from '@jest/globals';
import { isDependencyUnavailable } from '../src/dependency-errors.js';

describe('isDependencyUnavailable', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [new Error('Connection is closed.')],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    [Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' })],
    [new Error('wrapped', { cause: Object.assign(new Error('y'), { code: 'P1001' }) })],
    [Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })])],
  ])('recognises %s', (err) => {
    expect(isDependencyUnavailable(err)).toBe(true);
  });

  it.each([[new Error('boom')], [new TypeError('x is undefined')], [null], ['text'], [{ code: 'P2002' }]])(
    'leaves other errors alone: %s',
    (err) => {
      expect(isDependencyUnavailable(err)).toBe(false);
    },
  );
});
