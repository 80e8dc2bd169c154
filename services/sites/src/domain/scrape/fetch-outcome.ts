// How a fetch attempt ends for the scrape job. Pure, so the retry policy is readable and
// tested in one place: retry what may pass later (timeouts, network errors, 5xx, 408,
// 429), give up at once on what will not (a refused destination, other 4xx).
import { OutboundBlockedError, OutboundFetchError } from '@svc/safe-fetch';

export type FetchOutcome =
  { kind: 'page' } | { kind: 'retry'; reason: string } | { kind: 'give_up'; reason: string };

export function classifyStatus(status: number): FetchOutcome {
  if (status >= 200 && status < 300) return { kind: 'page' };
  if (status >= 500 || status === 408 || status === 429)
    return { kind: 'retry', reason: `HTTP ${status}` };
  return { kind: 'give_up', reason: `HTTP ${status}` };
}

export function classifyFetchError(err: unknown): FetchOutcome {
  if (err instanceof OutboundBlockedError)
    return { kind: 'give_up', reason: `blocked: ${err.message}` };
  if (err instanceof OutboundFetchError) {
    return err.reason === 'too_many_redirects'
      ? { kind: 'give_up', reason: err.message }
      : { kind: 'retry', reason: err.message };
  }
  throw err; // not a fetch failure: a bug or a dependency outage, let the job fail loudly
}
