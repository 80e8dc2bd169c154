// The safety net of the pipeline: sites still `pending` a few minutes after submission get
// their scrape queued again (submit-site.ts), and sites scraped but still without tags get
// their tag job queued again (the scrape's enqueueTag was lost, or the tag job failed for
// good, e.g. PostgreSQL was down through every attempt). Queueing is idempotent (job id
// from the site id), so a site whose job is waiting, delayed or running is left alone, and
// several API replicas may sweep at once.
import type { Queue } from 'bullmq';
import type { Logger } from '@svc/service-kit';
import type { SiteStore } from './site-store.js';
import { enqueueScrape, enqueueTag } from './worker/queues.js';

export const REQUEUE_MIN_AGE_MS = 2 * 60_000;
const BATCH = 500;

/** Queues every site `find` returns that was submitted before the minimum age. */
async function requeue(
  find: (olderThan: Date, limit: number) => Promise<Array<{ id: string }>>,
  enqueue: (queue: Queue, siteId: string) => Promise<void>,
  queue: Queue,
  now: Date,
): Promise<number> {
  const sites = await find(new Date(now.getTime() - REQUEUE_MIN_AGE_MS), BATCH);
  for (const { id } of sites) await enqueue(queue, id);
  return sites.length;
}

/** One sweep of pending scrapes; returns how many sites were (re-)queued. */
export const requeuePendingScrapes = (store: SiteStore, queue: Queue, now = new Date()) =>
  requeue(store.pendingScrapes, enqueueScrape, queue, now);

/** One sweep of scraped but untagged sites; returns how many were (re-)queued for tagging. */
export const requeueUntagged = (store: SiteStore, tagQueue: Queue, now = new Date()) =>
  requeue(store.untaggedSites, enqueueTag, tagQueue, now);

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged and tried next time. */
export function startScrapeRequeue(opts: {
  store: SiteStore;
  queue: Queue;
  tagQueue: Queue;
  logger: Logger;
  intervalMs?: number;
}) {
  let running = false;
  const sweep = async () => {
    const scrapes = await requeuePendingScrapes(opts.store, opts.queue);
    const tags = await requeueUntagged(opts.store, opts.tagQueue);
    if (scrapes + tags > 0) opts.logger.info({ scrapes, tags }, 're-queued unfinished sites');
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweep()
      .catch((err: Error) => opts.logger.warn({ err: err.message }, 're-queue sweep failed'))
      .finally(() => {
        running = false;
      });
  }, opts.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
