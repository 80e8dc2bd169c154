// Errors in words for the site-sharing pages: the shared `describeApiError` (app/lib/api-error.ts).
// An action's failure crosses to the page as a plain object (an ApiError does not survive
// serialisation); `toPlainError` keeps what describeApiError reads (it is duck-typed).
import { ApiError, NetworkError } from '@svc/client';
import { describeApiError } from '../../lib/api-error';

export interface PlainError {
  name: string;
  status?: number;
  message: string;
  retryAfter?: number;
  extra?: { details?: unknown };
}

export function toPlainError(err: unknown): PlainError {
  if (err instanceof ApiError) {
    return {
      name: 'ApiError',
      status: err.status,
      message: err.message,
      ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
      ...(err.details !== undefined ? { extra: { details: err.details } } : {}),
    };
  }
  if (err instanceof NetworkError) return { name: 'NetworkError', message: err.message };
  return { name: 'Error', message: 'unknown' };
}

export const describeError = describeApiError;
