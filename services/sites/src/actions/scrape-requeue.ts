// The safety net of the pipeline, a backstop behind the transactional outbox, swept every
// 60 s by each API process (started by main.ts, not by the worker process):
// - sites still `pending` a few minutes after submission get their scrape queued again. A
//   submission's scrape job cannot be lost on the way to Redis (it commits with the row,
//   job_outbox), but a job can still fail for good (PostgreSQL down through all its
//   attempts) or vanish with Redis' data; `enqueueScrape` also retries a failed job;
// - sites scraped but still without tags get their tag job queued again (the worker's
//   enqueueTag is not behind an outbox, or the tag job failed for good);
// - rows past their use are deleted: Idempotency-Keys past their 24 hours (lookups ignore
//   them already) and boosts before yesterday (only today's are counted), each by the
//   `expire` function main.ts gives, a bounded batch per sweep.
// Queueing is idempotent (job id from the site id), so a site whose job is waiting,
// delayed or running is left alone, and several API replicas may sweep at once.
import type { Queue } from 'bullmq';
import type { Logger } from '@svc/service-kit';
import type { SiteStore } from '../store/site-store.js';
import { enqueueScrape, enqueueTag } from '../worker/queues.js';

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
  /** Deletes one batch of rows past their use, by what they are; each returns how many. */
  expire?: Record<string, () => Promise<number>>;
  intervalMs?: number;
}) {
  let running = false;
  const sweep = async () => {
    const scrapes = await requeuePendingScrapes(opts.store, opts.queue);
    const tags = await requeueUntagged(opts.store, opts.tagQueue);
    if (scrapes + tags > 0) opts.logger.info({ scrapes, tags }, 're-queued unfinished sites');
    for (const [rows, expire] of Object.entries(opts.expire ?? {})) {
      const deleted = await expire();
      if (deleted > 0) opts.logger.info({ rows, deleted }, 'deleted rows past their use');
    }
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
