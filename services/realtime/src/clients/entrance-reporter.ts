// Tells chat that a client connected from an IP, so chat can store and broadcast an
// entrance message (chat applies the once-per-10-minutes rule). Fire-and-forget with a
// timeout: chat being slow or down never touches the socket.
import { ENTRANCE_COOLDOWN_SECONDS, ENTRANCE_PATH, INTERNAL_TOKEN_HEADER } from '@svc/types';
import type { Logger } from '@svc/service-kit';
import { RecentIps } from '../domain/recent-ips.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';

export interface EntranceReporterOptions {
  chatUrl: string;
  internalToken: string;
  timeoutMs: number;
  logger: Logger;
  metrics: RealtimeMetrics;
  /** At most this many calls in flight; beyond it reports are skipped (a connect storm). */
  maxInFlight?: number;
  maxRememberedIps?: number;
}

export function createEntranceReporter(opts: EntranceReporterOptions) {
  const url = new URL(ENTRANCE_PATH, opts.chatUrl).toString();
  const recent = new RecentIps(ENTRANCE_COOLDOWN_SECONDS * 1000, opts.maxRememberedIps ?? 50_000);
  const maxInFlight = opts.maxInFlight ?? 64;
  const inFlight = new Set<Promise<void>>();
  const count = (result: string) => opts.metrics.entranceReports.inc({ result });

  async function call(ip: string): Promise<void> {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [INTERNAL_TOKEN_HEADER]: opts.internalToken,
        },
        body: JSON.stringify({ ip }),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`chat answered ${res.status}`);
      count('sent');
    } catch (err) {
      recent.release(ip);
      count('failed');
      opts.logger.warn({ err: (err as Error).message }, 'entrance report failed');
    }
  }

  return {
    report(ip: string): void {
      if (inFlight.size >= maxInFlight) return count('skipped_busy');
      if (!recent.claim(ip, Date.now())) return count('skipped_recent');
      const p = call(ip).finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    /** For shutdown and tests: the calls still running. */
    settle: () => Promise.all([...inFlight]).then(() => undefined),
  };
}
export type EntranceReporter = ReturnType<typeof createEntranceReporter>;
