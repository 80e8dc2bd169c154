// Shared wording for failed API calls: ApiError / NetworkError (from @svc/client) → a
// sentence from the `common` namespace's `errors.*`. The core (`apiErrorMessage`) is pure
// and duck-typed (no value import from @svc/client, errors from another realm work too),
// so it runs in loaders, in the browser and in unit tests alike.
//
//   try { … } catch (err) { setError(describeApiError(err, t)); }

import type { TFunction } from 'i18next';

/** The i18n key (in `common`) and its values for one failure. */
export interface ErrorMessage {
  key:
    | 'errors.badRequest'
    | 'errors.unauthorized'
    | 'errors.forbidden'
    | 'errors.notFound'
    | 'errors.conflict'
    | 'errors.tooLarge'
    | 'errors.rateLimited'
    | 'errors.rateLimitedMinutes'
    | 'errors.unavailable'
    | 'errors.network'
    | 'errors.unknown';
  values: Record<string, string | number>;
}

/** A plain translate function (tests); react-i18next's `t` of any namespace fits too. */
export type PlainTranslate = (key: string, options?: Record<string, unknown>) => string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Translate = TFunction<any, any> | PlainTranslate;

/** When the API gave no wait at all (it always sends Retry-After on 429; this is a guard). */
export const DEFAULT_WAIT_SECONDS = 60;
/** Up to this many seconds the wait is said in seconds, above it in whole minutes. */
export const SECONDS_THRESHOLD = 120;

interface ApiErrorLike {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  retryAfter?: unknown;
  extra?: { retryAfter?: unknown; rateLimitReset?: unknown; headers?: unknown; details?: unknown };
  headers?: unknown;
}

function asRecord(err: unknown): ApiErrorLike | undefined {
  return err !== null && typeof err === 'object' ? (err as ApiErrorLike) : undefined;
}

function toSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value.trim());
  return undefined;
}

function header(headers: unknown, name: string): unknown {
  if (!headers || typeof headers !== 'object') return undefined;
  const h = headers as { get?: (n: string) => unknown } & Record<string, unknown>;
  if (typeof h.get === 'function') return h.get(name) ?? undefined;
  const found = Object.keys(h).find((k) => k.toLowerCase() === name);
  return found === undefined ? undefined : h[found];
}

/** Is it an ApiError (by shape: a name of ApiError or a numeric status)? */
export function isApiError(err: unknown): err is { status: number; message: string } {
  const e = asRecord(err);
  return !!e && typeof e.status === 'number' && Number.isInteger(e.status);
}

/** Is it a NetworkError (no HTTP answer)? Also a browser's own fetch TypeError. */
export function isNetworkError(err: unknown): boolean {
  const e = asRecord(err);
  if (!e) return false;
  if (e.name === 'NetworkError') return true;
  return e.name === 'TypeError' && typeof e.message === 'string' && /fetch|network/i.test(e.message);
}

/**
 * Seconds to wait before trying again: `Retry-After` (the client parses it into
 * `retryAfter`), else `RateLimit-Reset`, from the error or the headers it carries.
 */
export function waitSeconds(err: unknown): number | undefined {
  const e = asRecord(err);
  if (!e) return undefined;
  const candidates = [
    e.retryAfter,
    e.extra?.retryAfter,
    header(e.headers, 'retry-after'),
    header(e.extra?.headers, 'retry-after'),
    e.extra?.rateLimitReset,
    header(e.headers, 'ratelimit-reset'),
    header(e.extra?.headers, 'ratelimit-reset'),
  ];
  for (const c of candidates) {
    const s = toSeconds(c);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** The words of a validation 400: the first issue's message when `details` has one. */
function detailOf(e: ApiErrorLike): string {
  const details = e.extra?.details;
  if (Array.isArray(details)) {
    const first = details[0] as { message?: unknown; path?: unknown } | undefined;
    if (first && typeof first.message === 'string') {
      const path = Array.isArray(first.path) && first.path.length ? `${first.path.join('.')}: ` : '';
      return `${path}${first.message}`;
    }
  }
  return typeof e.message === 'string' ? e.message : '';
}

/** Pure core: which message (key + values) describes this failure. */
export function apiErrorMessage(err: unknown): ErrorMessage {
  if (isNetworkError(err)) return { key: 'errors.network', values: {} };
  if (!isApiError(err)) return { key: 'errors.unknown', values: {} };
  const e = err as ApiErrorLike & { status: number };
  switch (e.status) {
    case 400:
    case 422:
      return { key: 'errors.badRequest', values: { detail: detailOf(e) } };
    case 401:
      return { key: 'errors.unauthorized', values: {} };
    case 403:
      return { key: 'errors.forbidden', values: {} };
    case 404:
    case 410:
      return { key: 'errors.notFound', values: {} };
    case 409:
      return { key: 'errors.conflict', values: { detail: detailOf(e) } };
    case 413:
      return { key: 'errors.tooLarge', values: {} };
    case 429: {
      const seconds = Math.max(1, waitSeconds(err) ?? DEFAULT_WAIT_SECONDS);
      if (seconds > SECONDS_THRESHOLD)
        return { key: 'errors.rateLimitedMinutes', values: { minutes: Math.ceil(seconds / 60) } };
      return { key: 'errors.rateLimited', values: { seconds } };
    }
    case 502:
    case 503:
    case 504:
      return { key: 'errors.unavailable', values: {} };
    default:
      return { key: 'errors.unknown', values: {} };
  }
}

/** The failure in the reader's words (any namespace's `t`: the keys are read from `common`). */
export function describeApiError(err: unknown, t: Translate): string {
  const { key, values } = apiErrorMessage(err);
  return String((t as PlainTranslate)(key, { ...values, ns: 'common' }));
}
