// The scrape job: fetch the site's page (SSRF-safe), extract its metadata, store it,
// announce it with `site_update`, then queue the tagging. A page that cannot be fetched
// leaves the site listed as submitted (host name as title), marked `failed`, and still
// tagged (from its URL); transient failures are retried by BullMQ first.
import type { SafeFetcher } from '@svc/safe-fetch';
import type { EventPublisher, Logger } from '@svc/service-kit';
import { SiteUpdatePayload } from '@svc/types';
import type { PrismaClient } from '../generated/prisma/client.js';
import { extractMetadata } from '../domain/scrape/extract-metadata.js';
import { classifyFetchError, classifyStatus, type FetchOutcome } from '../domain/scrape/fetch-outcome.js';

export interface ScrapeDeps {
  db: PrismaClient;
  fetcher: SafeFetcher;
  events: EventPublisher;
  logger: Logger;
  enqueueTag(siteId: string): Promise<void>;
}

/** Thrown for a failure worth another attempt (BullMQ retries it with backoff). */
export class RetryableScrapeError extends Error {
  override readonly name = 'RetryableScrapeError';
}

export type ScrapeResult = 'done' | 'failed' | 'missing';

export async function scrapeSite(
  deps: ScrapeDeps,
  siteId: string,
  opts: { finalAttempt: boolean },
): Promise<ScrapeResult> {
  const site = await deps.db.site.findUnique({
    where: { id: siteId },
    select: { url: true, title: true, siteType: true },
  });
  if (!site) return 'missing';

  let outcome: FetchOutcome;
  let page: Awaited<ReturnType<SafeFetcher['fetchPage']>> | undefined;
  try {
    page = await deps.fetcher.fetchPage(site.url);
    outcome = classifyStatus(page.status);
  } catch (err) {
    outcome = classifyFetchError(err);
  }

  if (outcome.kind === 'retry' && !opts.finalAttempt)
    throw new RetryableScrapeError(outcome.reason);
  if (outcome.kind !== 'page' || !page) {
    deps.logger.info(
      { siteId, url: site.url, reason: outcome.kind === 'page' ? '' : outcome.reason },
      'scrape failed',
    );
    // Keep what is known (title = host name, no description); only the status changes.
    const { count } = await deps.db.site.updateMany({
      where: { id: siteId },
      data: { scrapeStatus: 'failed' },
    });
    if (count === 0) return 'missing';
    await deps.enqueueTag(siteId);
    return 'failed';
  }

  const meta = await extractMetadata({
    html: page.html,
    url: page.url,
    siteType: site.siteType,
    fallbackTitle: site.title,
    // Only public http(s) icon and image URLs reach the listing (same allow-list as the fetch).
    urlPolicy: (url) => deps.fetcher.checkUrl(url),
  });
  const { count } = await deps.db.site.updateMany({
    where: { id: siteId },
    data: { ...meta, scrapeStatus: 'done' },
  });
  if (count === 0) return 'missing';
  await deps.events.publish(
    'site_update',
    SiteUpdatePayload.parse({
      id: siteId,
      title: meta.title,
      description: meta.description,
      favicon_url: meta.faviconUrl,
      og_image_url: meta.ogImageUrl,
    }),
  );
  await deps.enqueueTag(siteId);
  return 'done';
}
