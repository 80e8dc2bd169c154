// The safety net of submit-site.ts: sites still `pending` a few minutes after submission
// are queued again. Queueing is idempotent (job id = site id), so a site whose job is
// waiting, delayed or running is left alone, and several API replicas may sweep at once.
import type { Queue } from 'bullmq';
import type { Logger } from '@svc/service-kit';
import type { SiteStore } from './site-store.js';
import { enqueueScrape } from './worker/queues.js';

export const REQUEUE_MIN_AGE_MS = 2 * 60_000;
const BATCH = 500;

/** One sweep; returns how many sites were (re-)queued. */
export async function requeuePendingScrapes(
  store: SiteStore,
  queue: Queue,
  now = new Date(),
): Promise<number> {
  const pending = await store.pendingScrapes(new Date(now.getTime() - REQUEUE_MIN_AGE_MS), BATCH);
  for (const { id } of pending) await enqueueScrape(queue, id);
  return pending.length;
}

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged and tried next time. */
export function startScrapeRequeue(opts: {
  store: SiteStore;
  queue: Queue;
  logger: Logger;
  intervalMs?: number;
}) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    requeuePendingScrapes(opts.store, opts.queue)
      .then((n) => n > 0 && opts.logger.info({ n }, 're-queued pending scrapes'))
      .catch((err: Error) => opts.logger.warn({ err: err.message }, 'scrape re-queue sweep failed'))
      .finally(() => {
        running = false;
      });
  }, opts.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
