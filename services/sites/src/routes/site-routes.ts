// HTTP of /api/sites*: parse with the shared schemas, call an action or the store, shape the
// answer.
import type { Express } from 'express';
import {
  HttpError,
  badRequest,
  byIp,
  callerIsModerator,
  limitFor,
  notFound,
  rateLimit,
  requireSession,
  setRateLimitHeaders,
  type Redis,
  type OutboxRelay,
  type IpHasher,
} from '@svc/service-kit';
import {
  ERROR_MESSAGES,
  SITE_TAGS,
  SITES_PAGE_TOO_DEEP,
  SiteIdParams,
  SiteListQuery,
  SubmitSiteBody,
} from '@svc/types';
import type { CaptchaVerifier } from '../clients/captcha.js';
import { secondsUntilUtcMidnight, utcDay } from '../domain/boost-allowance.js';
import { hasClaimMeta } from '../domain/claim-meta.js';
import { parseIdempotencyKey } from '../domain/idempotency-key.js';
import { sendEncodedJson } from './send-encoded-json.js';
import { listSites, type ListCaches } from '../actions/list-sites.js';
import { toSite } from '../store/site-record.js';
import type { SiteListReader } from '../store/site-list-reader.js';
import type { SitesReads } from '../store/read-routing.js';
import type { SiteStore } from '../store/site-store.js';
import type { SubmissionStore } from '../store/submission-store.js';
import { submitSite } from '../actions/submit-site.js';

export const SITE_NOT_FOUND = 'Site not found';
export const CLAIM_META_MISSING = 'Verification meta tag not found';
export const ALREADY_CLAIMED = 'Site already claimed';

/** What the sites API needs of @svc/safe-fetch's fetcher: the claim check and the URL policy. */
export interface PageFetcher {
  fetchPage(url: string): Promise<{ status: number; html: string }>;
  checkUrl(url: string): { ok: true } | { ok: false; reason: string };
}

export interface SiteRoutesDeps {
  store: SiteStore;
  submissions: SubmissionStore;
  redis: Redis;
  redisPrefix: string;
  systemMessages: Pick<OutboxRelay, 'nudge'>;
  jobOutbox: Pick<OutboxRelay, 'nudge'>;
  captcha?: CaptchaVerifier;
  pageFetcher: PageFetcher;
  hashIp: IpHasher;
  /** The listing's reads, routed (the 'listSites' read of store/read-routing.ts). */
  listReader: SiteListReader;
  listCache: ListCaches;
  reads: SitesReads;
}

export function siteRoutes(app: Express, deps: SiteRoutesDeps): void {
  const { store, redis, redisPrefix: prefix } = deps;
  const submitLimit = rateLimit({
    redis,
    prefix,
    name: 'sites-submit',
    ...limitFor('submitSite'),
    key: byIp,
  });
  // Not in the documents: a claim makes the service fetch a page, so it is bounded too.
  const claimLimit = rateLimit({
    redis,
    prefix,
    name: 'sites-claim',
    ...limitFor('claimSite'),
    key: byIp,
  });

  app.get('/api/sites', async (req, res) => {
    const query = SiteListQuery.safeParse(req.query);
    if (!query.success) {
      // A page past the cap is a request to read on: its own answer names the cursor.
      if (query.error.issues.some((i) => i.path[0] === 'page' && i.code === 'too_big'))
        throw badRequest(SITES_PAGE_TOO_DEEP);
      throw query.error;
    }
    sendEncodedJson(req, res, await listSites(deps.listReader, deps.listCache, query.data));
  });

  app.post('/api/sites', submitLimit.middleware, async (req, res) => {
    const body = SubmitSiteBody.parse(req.body);
    const key = parseIdempotencyKey(req.headers['idempotency-key']);
    if (!key.ok) throw badRequest(key.reason);
    const answer = await submitSite(
      { ...deps, checkUrl: (url) => deps.pageFetcher.checkUrl(url) },
      {
        url: body.url,
        captchaToken: body.captchaToken,
        ip: byIp(req),
        userId: req.caller?.userId ?? null,
        idempotencyKey: key.key,
      },
    );
    // The submitter's next reads, and this process's reloads, see the submission (a replay's
    // too: its first answer may have been cut short before saying so).
    await deps.reads.wrote(req.caller?.userId);
    if (answer.isNew && !answer.replayed) deps.listCache.clear();
    if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(answer.status).type('application/json').send(answer.body);
  });

  app.get('/api/sites/tags', (_req, res) => {
    res.json({ tags: [...SITE_TAGS] });
  });

  app.get('/api/sites/my-submissions', requireSession, async (req, res) => {
    const userId = req.caller!.userId;
    const rows = await deps.reads.read('mySubmissions', userId, (c) => c.store.mySubmissions(userId));
    res.json({ sites: rows.map(toSite) });
  });

  // After the literal /api/sites/tags and /api/sites/my-submissions, which it would shadow.
  // An id the schema refuses (over 128 characters) names no site: 404 like an unknown one
  // (the catalogue's rule for path parameters); only a NUL or invalid Unicode is a 400
  // (the kit's refuseInvalidText).
  app.get('/api/sites/:id', async (req, res) => {
    const params = SiteIdParams.safeParse(req.params);
    if (!params.success) throw notFound(SITE_NOT_FOUND);
    const id = params.data.id;
    const site = await deps.reads.read('siteDetail', req.caller?.userId, (c) => c.store.findById(id), {
      confirmOnPrimary: (found) => found === null,
    });
    if (!site) throw notFound(SITE_NOT_FOUND);
    // A hidden site is a 404 for everyone but moderators, who see it marked `hidden: true`.
    if (site.hiddenAt) {
      if (!callerIsModerator(req)) throw notFound(SITE_NOT_FOUND);
      res.json({ site: { ...toSite(site), hidden: true } });
      return;
    }
    res.json({ site: toSite(site) });
  });

  app.post('/api/sites/:id/boost', async (req, res) => {
    const { id } = SiteIdParams.parse(req.params);
    const now = new Date();
    const caller = req.caller ? { userId: req.caller.userId } : { ipHash: deps.hashIp(byIp(req)) };
    const outcome = await store.boost({ siteId: id, caller, day: utcDay(now) });
    if (outcome.kind === 'not-found') throw notFound(SITE_NOT_FOUND);
    const reset = secondsUntilUtcMidnight(now);
    if (outcome.kind === 'limit-reached') {
      setRateLimitHeaders(res, { limit: outcome.limit, remaining: 0, resetSeconds: reset });
      throw new HttpError(429, ERROR_MESSAGES.tooManyRequests, undefined, {
        'Retry-After': String(reset),
      });
    }
    setRateLimitHeaders(res, { limit: outcome.limit, remaining: outcome.creditsAfter, resetSeconds: reset });
    await deps.reads.wrote(req.caller?.userId);
    deps.listCache.clear();
    res.json({ site: toSite(outcome.site), credits: outcome.creditsAfter });
  });

  app.post('/api/sites/:id/claim', claimLimit.middleware, async (req, res) => {
    const { id } = SiteIdParams.parse(req.params);
    const site = await store.findById(id);
    if (!site || site.hiddenAt) throw notFound(SITE_NOT_FOUND);
    if (site.isClaimed) throw badRequest(ALREADY_CLAIMED);
    if (!(await pageHasClaimMeta(deps.pageFetcher, site.url, id)))
      throw badRequest(CLAIM_META_MISSING);
    const outcome = await store.claim(id, req.caller?.userId ?? null);
    if (outcome.kind === 'not-found') throw notFound(SITE_NOT_FOUND);
    if (outcome.kind === 'already-claimed') throw badRequest(ALREADY_CLAIMED);
    await deps.reads.wrote(req.caller?.userId);
    res.json({ site: toSite(outcome.site), verified: true });
  });
}

/** A page we cannot fetch (blocked, down, not HTML, error status) has no tag either. */
async function pageHasClaimMeta(
  fetcher: PageFetcher,
  url: string,
  siteId: string,
): Promise<boolean> {
  let page: { status: number; html: string };
  try {
    page = await fetcher.fetchPage(url);
  } catch {
    return false;
  }
  return page.status >= 200 && page.status < 300 && hasClaimMeta(page.html, siteId);
}

