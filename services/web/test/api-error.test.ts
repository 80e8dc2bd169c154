import { describe, expect, it } from '@jest/globals';
import { ApiError, NetworkError } from '@svc/client';
import { apiErrorMessage, describeApiError, waitSeconds } from '../app/lib/api-error.js';

describe('apiErrorMessage', () => {
  it('429 with Retry-After gives the wait in seconds', () => {
    const err = new ApiError(429, 'Too many requests', { retryAfter: 42 });
    expect(waitSeconds(err)).toBe(42);
    expect(apiErrorMessage(err)).toEqual({ key: 'errors.rateLimited', values: { seconds: 42 } });
  });

  it('a long wait is said in minutes', () => {
    const err = new ApiError(429, 'Too many requests', { retryAfter: 3599 });
    expect(apiErrorMessage(err)).toEqual({ key: 'errors.rateLimitedMinutes', values: { minutes: 60 } });
  });

  it('RateLimit-Reset from headers when there is no Retry-After', () => {
    const err = { name: 'ApiError', status: 429, message: 'x', headers: new Headers({ 'RateLimit-Reset': '17' }) };
    expect(apiErrorMessage(err)).toEqual({ key: 'errors.rateLimited', values: { seconds: 17 } });
  });

  it('429 without any wait falls back to the default', () => {
    expect(apiErrorMessage(new ApiError(429, 'x')).values.seconds).toBe(60);
  });

  it('maps statuses', () => {
    expect(apiErrorMessage(new ApiError(401, 'x')).key).toBe('errors.unauthorized');
    expect(apiErrorMessage(new ApiError(403, 'x')).key).toBe('errors.forbidden');
    expect(apiErrorMessage(new ApiError(404, 'x')).key).toBe('errors.notFound');
    expect(apiErrorMessage(new ApiError(413, 'x')).key).toBe('errors.tooLarge');
    expect(apiErrorMessage(new ApiError(502, 'x')).key).toBe('errors.unavailable');
    expect(apiErrorMessage(new ApiError(503, 'x')).key).toBe('errors.unavailable');
    expect(apiErrorMessage(new ApiError(500, 'x')).key).toBe('errors.unknown');
    expect(apiErrorMessage(new Error('boom')).key).toBe('errors.unknown');
    expect(apiErrorMessage(null).key).toBe('errors.unknown');
  });

  it('400 and 409 carry the detail, a validation issue first', () => {
    expect(apiErrorMessage(new ApiError(409, 'Username taken'))).toEqual({
      key: 'errors.conflict',
      values: { detail: 'Username taken' },
    });
    const err = new ApiError(400, 'Invalid body', { details: [{ path: ['username'], message: 'Too short' }] });
    expect(apiErrorMessage(err)).toEqual({ key: 'errors.badRequest', values: { detail: 'username: Too short' } });
  });

  it('network failures', () => {
    expect(apiErrorMessage(new NetworkError('refused', 'http://x', false)).key).toBe('errors.network');
    expect(apiErrorMessage(new TypeError('Failed to fetch')).key).toBe('errors.network');
  });
});

describe('describeApiError', () => {
  it('translates from the common namespace with the values', () => {
    const calls: unknown[] = [];
    const t = (key: string, options?: unknown) => {
      calls.push([key, options]);
      return `T:${key}`;
    };
    expect(describeApiError(new ApiError(429, 'x', { retryAfter: 5 }), t)).toBe('T:errors.rateLimited');
    expect(calls).toEqual([['errors.rateLimited', { seconds: 5, ns: 'common' }]]);
  });
});
