// A failed call in the reader's words, through the shared app/lib/api-error.ts. Actions run
// on the server and hand the component a plain, serialisable `Failure`.
import { ApiError, NetworkError } from '@svc/client';
import type { TFunction } from 'i18next';
import { describeApiError, type Translate } from '../../lib/api-error';

/** Any namespace's `t` (react-i18next's TFunction is stricter than api-error's Translate). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyT = TFunction<any, any>;

/** What a failed call leaves for the page: the HTTP status (0: no answer) and the API's words. */
export interface Failure {
  status: number;
  message: string;
  retryAfter?: number;
  details?: unknown;
}

export function failureOf(err: unknown): Failure {
  if (err instanceof ApiError) {
    return {
      status: err.status,
      message: err.message,
      ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
      ...(err.details !== undefined ? { details: JSON.parse(JSON.stringify(err.details)) as unknown } : {}),
    };
  }
  if (err instanceof NetworkError) return { status: 0, message: err.message };
  return { status: -1, message: err instanceof Error ? err.message : String(err) };
}

export function describeFailure(f: Failure, tf: AnyT): string {
  const t = tf as unknown as Translate;
  if (f.status === 0) return describeApiError({ name: 'NetworkError', message: f.message }, t);
  if (f.status < 0) return describeApiError(new Error(f.message), t);
  return describeApiError({ status: f.status, message: f.message, retryAfter: f.retryAfter, extra: { details: f.details } }, t);
}
