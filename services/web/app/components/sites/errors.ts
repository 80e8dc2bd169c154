// Errors in words for the site-sharing pages. Uses the shared `errors.*` messages of the
// common namespace; a plain `{ status, message, retryAfter }` (what an action returns after
// an ApiError, which does not survive serialisation) is accepted too.
import { ApiError, NetworkError } from '@svc/client';
import type { TFunction } from 'i18next';

export interface PlainError {
  status: number;
  message: string;
  retryAfter?: number;
}

/** What a loader or action hands the page about a failed call. */
export function toPlainError(err: unknown): PlainError {
  if (err instanceof ApiError) return { status: err.status, message: err.message, retryAfter: err.retryAfter };
  if (err instanceof NetworkError) return { status: 0, message: 'network' };
  return { status: -1, message: 'unknown' };
}

export function describeError(err: unknown, t: TFunction): string {
  const e = err instanceof ApiError || err instanceof NetworkError || !isPlain(err) ? toPlainError(err) : err;
  const opt = { ns: 'common' };
  switch (e.status) {
    case 0:
      return t('errors.network', opt);
    case 400:
    case 422:
      return t('errors.badRequest', { ...opt, detail: e.message });
    case 401:
      return t('errors.unauthorized', opt);
    case 403:
      return t('errors.forbidden', opt);
    case 404:
      return t('errors.notFound', opt);
    case 409:
      return t('errors.conflict', { ...opt, detail: e.message });
    case 413:
      return t('errors.tooLarge', opt);
    case 429: {
      const s = e.retryAfter;
      if (s === undefined) return t('errors.rateLimited', { ...opt, seconds: 60 });
      if (s >= 120) return t('errors.rateLimitedMinutes', { ...opt, minutes: Math.ceil(s / 60) });
      return t('errors.rateLimited', { ...opt, seconds: Math.max(1, Math.ceil(s)) });
    }
    case 502:
    case 503:
    case 504:
      return t('errors.unavailable', opt);
    default:
      return t('errors.unknown', opt);
  }
}

function isPlain(v: unknown): v is PlainError {
  return typeof v === 'object' && v !== null && typeof (v as PlainError).status === 'number';
}
