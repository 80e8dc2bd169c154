// POST /api/sites as a use case: normalise, refuse non-public destinations, replay
// an idempotent retry, check the CAPTCHA, detect a profile, then store the submission.
//
// Durable or nothing: the site row (insert or one more submission), the `site_submitted`
// chat message of a new site and the request for its scrape job are committed in one
// PostgreSQL transaction (the kit's transactional outboxes: `system_message_outbox` and
// `job_outbox`), together with the Idempotency-Key answer when a key was sent. The answer
// is 201/200 once that commits, whatever Redis is doing: the outbox relays move the job
// (id `scrape-<site id>`, so duplicates are dropped) and the message to BullMQ when Redis
// is reachable; the nudges below only hurry them. If PostgreSQL fails, nothing was stored
// and the answer is 503. Nothing on this path writes to Redis but the rate limiter (which
// falls back to memory).
import { newId, HttpError, badRequest, type OutboxRelay } from '@svc/service-kit';
import { normaliseSiteUrl } from '@svc/types';
import type { CaptchaVerifier } from '../clients/captcha.js';
import {
  IDEMPOTENCY_KEY_REUSED,
  idempotencyScope,
  replayDecision,
  submissionFingerprint,
  type StoredAnswer,
} from '../domain/idempotency-key.js';
import { detectSocialProfile } from '../domain/social-profile.js';
import { toSite } from '../store/site-record.js';
import type { SubmissionStore } from '../store/submission-store.js';

export const CAPTCHA_ERROR = 'Missing or invalid CAPTCHA token';
export const URL_NOT_PUBLIC = 'URL must point to a public web site';

export interface SubmitDeps {
  submissions: SubmissionStore;
  /** Relay of the `site_submitted` chat message. */
  systemMessages: Pick<OutboxRelay, 'nudge'>;
  /** Relay of the scrape job. */
  jobOutbox: Pick<OutboxRelay, 'nudge'>;
  /** The URL policy of @svc/safe-fetch with the outbound allow-list (`fetcher.checkUrl`). */
  checkUrl: (url: string) => { ok: true } | { ok: false; reason: string };
  captcha?: CaptchaVerifier;
  hashIp: (ip: string) => string;
}

export interface SubmitInput {
  url: string;
  captchaToken?: string;
  ip: string;
  userId: string | null;
  /** A valid Idempotency-Key header value, or null. */
  idempotencyKey: string | null;
}

/** The HTTP answer: the status and the exact JSON body (a replay sends the stored one). */
export interface SubmitAnswer {
  status: number;
  body: string;
  isNew: boolean;
  replayed: boolean;
}

export async function submitSite(deps: SubmitDeps, input: SubmitInput): Promise<SubmitAnswer> {
  const normalised = normaliseSiteUrl(input.url);
  if (!normalised.ok) throw badRequest(normalised.reason);
  const destination = deps.checkUrl(normalised.url);
  if (!destination.ok) throw badRequest(`${URL_NOT_PUBLIC}: ${destination.reason}`);

  const fingerprint = submissionFingerprint(normalised.url);
  const idempotency = input.idempotencyKey
    ? {
        scope: idempotencyScope({ userId: input.userId, ipHash: deps.hashIp(input.ip) }),
        key: input.idempotencyKey,
        fingerprint,
      }
    : null;
  // A retry whose first answer is stored gets it without another CAPTCHA (its token was
  // single-use, and a replay stores nothing); the transaction below checks again.
  if (idempotency) {
    const prior = await deps.submissions.findAnswer(idempotency.scope, idempotency.key);
    if (prior) return replay(prior, fingerprint);
  }

  if (deps.captcha) {
    if (!input.captchaToken || !(await deps.captcha.verify(input.captchaToken, input.ip))) {
      throw new HttpError(403, CAPTCHA_ERROR);
    }
  }
  const profile = detectSocialProfile(normalised.url);
  const outcome = await deps.submissions.submit(
    {
      id: newId(),
      url: normalised.url,
      domain: normalised.domain,
      // Until the worker has scraped the page (docs/decisions/005-sites.md).
      title: normalised.domain,
      profile: profile && { platform: profile.platform, username: profile.username },
      userId: input.userId,
    },
    {
      idempotency,
      answer: (row, inserted) => ({
        status: inserted ? 201 : 200,
        body: JSON.stringify({ site: toSite(row), isNew: inserted }),
      }),
    },
  );
  if (outcome.kind === 'stored') return replay(outcome.stored, fingerprint);

  if (outcome.inserted) deps.systemMessages.nudge();
  if (outcome.site.scrapeStatus !== 'done') deps.jobOutbox.nudge();
  return { ...outcome.answer, isNew: outcome.inserted, replayed: false };
}

function replay(stored: StoredAnswer, fingerprint: string): SubmitAnswer {
  const decision = replayDecision(stored, fingerprint);
  if (decision.kind === 'mismatch') throw new HttpError(422, IDEMPOTENCY_KEY_REUSED);
  return {
    status: decision.status,
    body: decision.body,
    isNew: decision.status === 201,
    replayed: true,
  };
}
