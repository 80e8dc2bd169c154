// What a call can fail with: the API answered with an error (ApiError), or no answer
// arrived at all (NetworkError). Both extend SvcError so one `catch` can tell them apart.

export class SvcError extends Error {
  override name = 'SvcError';
}

/** The API answered with a status outside 2xx (or with a body that is not JSON). */
export class ApiError extends SvcError {
  override name = 'ApiError';
  constructor(
    /** HTTP status, e.g. 400, 401, 403, 404, 409, 429, 503. */
    readonly status: number,
    /** The `error` string of the JSON body, or a description when there was none. */
    message: string,
    readonly extra: {
      /** Validation issues some 400s carry (`details` in the body). */
      details?: unknown;
      /** `X-Request-Id` of the response: quote it when reporting a problem. */
      requestId?: string;
      /** Seconds to wait, from `Retry-After` (429, some 503s). */
      retryAfter?: number;
      method?: string;
      path?: string;
      /** The parsed body, or its text when it was not JSON. */
      body?: unknown;
    } = {},
  ) {
    super(message);
  }
  get details(): unknown {
    return this.extra.details;
  }
  get requestId(): string | undefined {
    return this.extra.requestId;
  }
  get retryAfter(): number | undefined {
    return this.extra.retryAfter;
  }
}

/** The request never got an HTTP answer: refused connection, DNS failure, timeout, reset. */
export class NetworkError extends SvcError {
  override name = 'NetworkError';
  constructor(
    message: string,
    readonly url: string,
    /** True when the client's own timeout fired. */
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
