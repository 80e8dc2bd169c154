// One HTTP call: URL and query, credentials chosen by the endpoint's auth mode, JSON in and
// out, and every failure turned into ApiError or NetworkError.
import { ApiError, NetworkError } from './errors.js';
import { buildQuery, normaliseBaseUrl, type QueryValue } from './query.js';

/** As in the endpoint catalogue of @svc/types. */
export type AuthMode = 'none' | 'session' | 'session-or-key' | 'optional-session';

export const SESSION_COOKIE = 'sn_token';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface TransportOptions {
  /** Origin of the API, e.g. `https://svc.example` (paths start with /api). */
  baseUrl: string;
  /** An app-store API key (`svc_live_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /**
   * The `sn_token` session, sent as a Cookie header (Node, scripts). In a browser leave it
   * out: the browser sends its own cookie (see `credentials`).
   */
  sessionToken?: string;
  /** Passed to fetch; browsers on another origin need `include` to send the cookie. */
  credentials?: RequestCredentials;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per request; 0 disables the client's own timeout. Default 30 s. */
  timeoutMs?: number;
  /** Extra headers on every request (e.g. a User-Agent in Node). */
  headers?: Record<string, string>;
}

export interface CallOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  auth: AuthMode;
  signal?: AbortSignal;
}

export interface RawResponse<T> {
  data: T;
  status: number;
  headers: Headers;
}

export class Transport {
  readonly baseUrl: string;
  apiKey: string | undefined;
  sessionToken: string | undefined;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey || undefined;
    this.sessionToken = options.sessionToken || undefined;
    const impl = options.fetch ?? globalThis.fetch;
    if (typeof impl !== 'function') throw new TypeError('No fetch available: pass options.fetch');
    // Browsers refuse fetch called as a method of another object ("Illegal invocation").
    this.fetchImpl = options.fetch ?? impl.bind(globalThis);
  }

  async call<T>(method: string, path: string, opts: CallOptions): Promise<T> {
    return (await this.raw<T>(method, path, opts)).data;
  }

  async raw<T>(method: string, path: string, opts: CallOptions): Promise<RawResponse<T>> {
    const url = `${this.baseUrl}${path}${buildQuery(opts.query)}`;
    const headers = new Headers(this.options.headers);
    headers.set('accept', 'application/json');
    this.addCredentials(headers, opts.auth);
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(opts.body);
    }

    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signals = [timeout, opts.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers,
        body,
        signal,
        credentials: this.options.credentials,
      });
      text = await res.text();
    } catch (err) {
      // The caller's own abort is not a network failure: hand its reason back unchanged.
      if (opts.signal?.aborted) throw opts.signal.reason;
      const timedOut = timeout?.aborted === true;
      const why = timedOut ? `no answer within ${timeoutMs} ms` : describeCause(err);
      throw new NetworkError(`${method} ${url} failed: ${why}`, url, timedOut, { cause: err });
    }

    const parsed = parseJson(text);
    if (!res.ok) throw toApiError(res, method, path, text, parsed);
    if (res.status === 204 || text === '') {
      return { data: undefined as T, status: res.status, headers: res.headers };
    }
    if (parsed === NOT_JSON) {
      throw new ApiError(
        res.status,
        `${method} ${path} answered ${res.status} with a body that is not JSON`,
        {
          method,
          path,
          body: text,
          requestId: res.headers.get('x-request-id') ?? undefined,
        },
      );
    }
    return { data: parsed as T, status: res.status, headers: res.headers };
  }

  /**
   * One credential per request, the one the endpoint accepts: a key for key-capable
   * endpoints, the session elsewhere. A key is still sent to session-only endpoints when
   * there is no session, so the caller gets the API's own 403 ("keys cannot …") rather
   * than a bare 401.
   */
  private addCredentials(headers: Headers, mode: AuthMode): void {
    const cookie = this.sessionToken ? `${SESSION_COOKIE}=${this.sessionToken}` : undefined;
    const bearer = this.apiKey ? `Bearer ${this.apiKey}` : undefined;
    switch (mode) {
      case 'none':
        return;
      case 'optional-session':
        if (cookie) headers.set('cookie', cookie);
        return;
      case 'session':
        if (cookie) headers.set('cookie', cookie);
        else if (bearer) headers.set('authorization', bearer);
        return;
      case 'session-or-key':
        if (bearer) headers.set('authorization', bearer);
        else if (cookie) headers.set('cookie', cookie);
        return;
    }
  }
}

const NOT_JSON = Symbol('not json');

function parseJson(text: string): unknown {
  if (text === '') return NOT_JSON;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function toApiError(
  res: Response,
  method: string,
  path: string,
  text: string,
  parsed: unknown,
): ApiError {
  const json = parsed !== NOT_JSON && typeof parsed === 'object' && parsed !== null;
  const record = json ? (parsed as Record<string, unknown>) : {};
  const message =
    typeof record.error === 'string' && record.error
      ? record.error
      : `${method} ${path} failed with HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  return new ApiError(res.status, message, {
    details: record.details,
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
    method,
    path,
    body: json ? parsed : text,
  });
}

/** Seconds from a `Retry-After` of either form (delta seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** undici hides the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`. */
function describeCause(err: unknown): string {
  // Duck-typed: errors may come from another realm (a test VM, an iframe's fetch).
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const cause = e && typeof e === 'object' ? e.cause : undefined;
  if (cause && typeof cause.code === 'string') {
    const detail = typeof cause.message === 'string' ? cause.message : '';
    return detail.includes(cause.code) ? detail : detail ? `${cause.code} (${detail})` : cause.code;
  }
  if (cause && typeof cause.message === 'string') return cause.message;
  return e && typeof e.message === 'string' ? e.message : String(err);
}

/** The `sn_token` value in a response's Set-Cookie headers (Node only; browsers hide them). */
export function sessionTokenFromHeaders(headers: Headers): string | undefined {
  const all =
    typeof headers.getSetCookie === 'function'
      ? headers.getSetCookie()
      : (headers.get('set-cookie') ?? '').split(/,(?=\s*[^;=\s]+=)/);
  for (const line of all) {
    const first = line.split(';')[0]?.trim() ?? '';
    const eq = first.indexOf('=');
    if (eq > 0 && first.slice(0, eq) === SESSION_COOKIE) {
      const value = first.slice(eq + 1);
      return value ? decodeURIComponent(value) : undefined;
    }
  }
  return undefined;
}
