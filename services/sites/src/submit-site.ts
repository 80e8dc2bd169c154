// POST /api/sites as a domain operation: normalise, detect a profile, check the CAPTCHA,
// store (insert or count a resubmission), then queue the scrape and announce a new site.
//
// Ordering and durability: the row is committed first, then the scrape job is queued
// (job id derived from the site id, so queueing twice is a no-op). If queueing fails the
// request answers 503, never a 2xx, and the row stays `scrape_status = 'pending'`. It gets
// queued again by (a) any later submit of the same URL (every submit of a site not yet
// scraped re-queues) and (b) the API's re-queue sweep (`scrape-requeue.ts`), which
// re-queues pending sites older than a few minutes. So an acknowledged submit is always
// queued, and a refused one is queued by a retry or the sweep.
//
// The `site_submitted` chat message is written by the same statement as the new row (the
// transactional outbox of @svc/service-kit), so it is sent even when this request ends in
// that 503 or the process dies right after answering; the nudge only hurries it along.
import type { Queue } from 'bullmq';
import {
  newId,
  HttpError,
  badRequest,
  withTimeout,
  type SystemMessageOutbox,
} from '@svc/service-kit';
import { ERROR_MESSAGES, type Site } from '@svc/types';
import type { CaptchaVerifier } from './captcha.js';
import { normaliseSiteUrl } from './domain/site-url.js';
import { detectSocialProfile } from './domain/social-profile.js';
import { toSite } from './site-record.js';
import type { SiteStore } from './site-store.js';
import { enqueueScrape } from './worker/queues.js';

export const CAPTCHA_ERROR = 'Missing or invalid CAPTCHA token';
/** Queue writes wait at most this long for Redis before the request answers 503. */
const QUEUE_TIMEOUT_MS = 3000;

export interface SubmitDeps {
  store: SiteStore;
  scrapeQueue: Queue;
  systemMessages: Pick<SystemMessageOutbox, 'nudge'>;
  captcha?: CaptchaVerifier;
}

export interface SubmitInput {
  url: string;
  captchaToken?: string;
  ip: string;
  userId: string | null;
}

export async function submitSite(
  deps: SubmitDeps,
  input: SubmitInput,
): Promise<{ site: Site; isNew: boolean }> {
  const normalised = normaliseSiteUrl(input.url);
  if (!normalised.ok) throw badRequest(normalised.reason);
  if (deps.captcha) {
    if (!input.captchaToken || !(await deps.captcha.verify(input.captchaToken, input.ip))) {
      throw new HttpError(403, CAPTCHA_ERROR);
    }
  }
  const profile = detectSocialProfile(normalised.url);
  const { site, inserted } = await deps.store.submit({
    id: newId(),
    url: normalised.url,
    domain: normalised.domain,
    // Until the worker has scraped the page (DECISIONS §5).
    title: normalised.domain,
    profile: profile && { platform: profile.platform, username: profile.username },
    userId: input.userId,
  });
  if (inserted) deps.systemMessages.nudge();
  // A resubmitted site whose scrape failed gets another try (the page may be up now); the
  // per-IP submit limit bounds how often that can happen.
  if (site.scrapeStatus !== 'done') await queueWrite(enqueueScrape(deps.scrapeQueue, site.id));
  return { site: toSite(site), isNew: inserted };
}

/** A queue write bounded in time; Redis trouble becomes a 503. */
export async function queueWrite(write: Promise<unknown>): Promise<void> {
  try {
    await withTimeout(write, QUEUE_TIMEOUT_MS, 'Redis');
  } catch {
    throw new HttpError(503, ERROR_MESSAGES.serviceUnavailable, undefined, { 'Retry-After': '5' });
  }
}
