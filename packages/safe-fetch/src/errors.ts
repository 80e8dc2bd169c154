// The two ways a fetch can fail: the destination is not allowed (SSRF rules), or the
// fetch itself failed (timeout, too many redirects, network).

/** The URL, a redirect target or a resolved address is not a public http(s) destination. */
export class OutboundBlockedError extends Error {
  override readonly name = 'OutboundBlockedError';
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

export type OutboundFailure = 'timeout' | 'too_many_redirects' | 'network';

/** The destination was allowed, but the page could not be fetched. */
export class OutboundFetchError extends Error {
  override readonly name = 'OutboundFetchError';
  constructor(
    message: string,
    readonly url: string,
    readonly reason: OutboundFailure,
    readonly status?: number,
  ) {
    super(message);
  }
}
