// The worker's SSRF-safe fetcher, from its settings (the claim check builds its own from
// the same OUTBOUND_ALLOW_HOSTS).
import { createSafeFetcher, type SafeFetcher } from '@svc/safe-fetch';
import type { WorkerConfig } from '../config.js';

export function createPageFetcher(
  config: Pick<
    WorkerConfig,
    | 'OUTBOUND_ALLOW_HOSTS'
    | 'SCRAPE_CONNECT_TIMEOUT_MS'
    | 'SCRAPE_TIMEOUT_MS'
    | 'SCRAPE_MAX_BYTES'
    | 'SCRAPE_MAX_REDIRECTS'
  >,
): SafeFetcher {
  return createSafeFetcher({
    allowHosts: config.OUTBOUND_ALLOW_HOSTS,
    connectTimeoutMs: config.SCRAPE_CONNECT_TIMEOUT_MS,
    totalTimeoutMs: config.SCRAPE_TIMEOUT_MS,
    maxBytes: config.SCRAPE_MAX_BYTES,
    maxRedirects: config.SCRAPE_MAX_REDIRECTS,
  });
}
