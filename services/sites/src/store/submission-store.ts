// The writes of POST /api/sites, durable or nothing: one PostgreSQL transaction on a plain
// pg pool holds the site row (insert, or one more submission of a known URL), the
// logged-in submitter's history row, the `site_submitted` chat message of a new site
// (`system_message_outbox`), the request for its scrape (`job_outbox`, job id
// `scrape-<site id>`) and, when the caller sent one, the Idempotency-Key and its answer.
// The kit's outbox relays move the two outbox rows to BullMQ afterwards, with the request's
// trace context (tracing on) stored beside each.
//
// On the plain pool through the kit's `inPgTransaction` rather than Prisma's interactive
// transaction: the statements are hand-written SQL, and a client that cannot roll back
// (its connection died inside the transaction) is released with its error and discarded
// (unpatched, @prisma/adapter-pg 6.19 keeps such a client: see patches/ and app-store's
// transaction-pool test).
import type pg from 'pg';
import type { SocialPlatform } from '@svc/types';
import { inPgTransaction } from '@svc/service-kit';
import { currentTraceparent } from '@svc/tracing';
import { IDEMPOTENCY_KEY_TTL_MS, type StoredAnswer } from '../domain/idempotency-key.js';
import { SITE_ROW_COLUMNS, type SiteRow } from './site-record.js';
import { SCRAPE_JOB_ID_PREFIX, SCRAPE_QUEUE } from '../worker/queues.js';

export interface NewSite {
  id: string;
  url: string;
  domain: string;
  title: string;
  profile: { platform: SocialPlatform; username: string } | null;
  userId: string | null;
}

export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
}

export type SubmitOutcome =
  | { kind: 'stored'; stored: StoredAnswer }
  | {
      kind: 'submitted';
      site: SiteRow;
      inserted: boolean;
      answer: { status: number; body: string };
    };

const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;
const TTL_SECONDS = IDEMPOTENCY_KEY_TTL_MS / 1000;

/**
 * Insert, or count one more submission, with everything it causes. Concurrent submits of
 * one URL meet at the unique index and exactly one inserts (`xmax = 0` is true only for the
 * row version this statement inserted). $1–$7: id, url, title, domain, profile platform,
 * profile username, user id.
 */
const SUBMIT_SQL = `
  WITH upsert AS (
    INSERT INTO sites AS s (id, url, title, domain, site_type, social_platform, social_username,
                            submitted_by, first_submitted_at, last_activity_at)
    VALUES ($1, $2, $3, $4,
            (CASE WHEN $5::text IS NULL THEN 'website' ELSE 'profile' END)::site_type,
            $5::text::social_platform, $6, $7, ${NOW_UTC}, ${NOW_UTC})
    ON CONFLICT (url) DO UPDATE
      SET submit_count = s.submit_count + 1, last_activity_at = ${NOW_UTC}
    RETURNING ${SITE_ROW_COLUMNS}, (s.xmax = 0) AS inserted
  ), history AS (
    INSERT INTO site_submissions (site_id, user_id, created_at)
    SELECT id, $7, ${NOW_UTC} FROM upsert WHERE $7::text IS NOT NULL
    ON CONFLICT (user_id, site_id) DO NOTHING
  ), announcement AS (
    -- Chat's site_submitted message of a new site.
    INSERT INTO system_message_outbox (content_key, content_params, traceparent)
    SELECT 'site_submitted', jsonb_build_object('site_id', id, 'url', url, 'domain', domain), $8::text
    FROM upsert WHERE inserted
  ), scrape AS (
    -- The scrape of a site not scraped yet (every such submit asks again: a job that is still
    -- known to BullMQ makes the request a no-op, one that was lost is queued again).
    INSERT INTO job_outbox (queue, job_name, job_id, payload)
    SELECT '${SCRAPE_QUEUE}', '${SCRAPE_QUEUE}', '${SCRAPE_JOB_ID_PREFIX}' || id,
           -- The trace context travels in the job's payload (tracing on: $8 is set).
           jsonb_build_object('siteId', id) || jsonb_strip_nulls(jsonb_build_object('traceparent', $8::text))
    FROM upsert WHERE "scrapeStatus" <> 'done'
  )
  SELECT * FROM upsert`;

const FIND_ANSWER_SQL = `
  SELECT fingerprint, response_status AS status, response_body AS body
  FROM idempotency_keys
  WHERE scope = $1 AND key = $2 AND created_at > now() - make_interval(secs => ${TTL_SECONDS})`;

/** A new key, or one whose 24 hours are over (the lookup found no live answer). */
const SAVE_ANSWER_SQL = `
  INSERT INTO idempotency_keys (scope, key, fingerprint, response_status, response_body, created_at)
  VALUES ($1, $2, $3, $4, $5, now())
  ON CONFLICT (scope, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at`;

export function createSubmissionStore(pool: pg.Pool) {
  return {
    /**
     * With an idempotency key, a transaction-scoped advisory lock on (scope, key) makes
     * concurrent retries wait here for the first; a live answer already stored for the key
     * ends the transaction with nothing written (`stored`). `answer(site, inserted)`
     * renders the response that is stored with the key.
     */
    submit(
      site: NewSite,
      opts: {
        idempotency: IdempotencyRecord | null;
        answer: (row: SiteRow, inserted: boolean) => { status: number; body: string };
      },
    ): Promise<SubmitOutcome> {
      const idem = opts.idempotency;
      return inPgTransaction(pool, async (client) => {
        if (idem) {
          await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text', [
            `idem:${idem.scope}:${idem.key}`,
          ]);
          const prior = await client.query<StoredAnswer>(FIND_ANSWER_SQL, [idem.scope, idem.key]);
          if (prior.rows[0]) return { kind: 'stored', stored: prior.rows[0] } as const;
        }
        const { rows } = await client.query<SiteRow & { inserted: boolean }>(SUBMIT_SQL, [
          site.id,
          site.url,
          site.title,
          site.domain,
          site.profile?.platform ?? null,
          site.profile?.username ?? null,
          site.userId,
          currentTraceparent(),
        ]);
        const { inserted, ...row } = rows[0]!;
        const answer = opts.answer(row as SiteRow, inserted);
        if (idem) {
          await client.query(SAVE_ANSWER_SQL, [
            idem.scope,
            idem.key,
            idem.fingerprint,
            answer.status,
            answer.body,
          ]);
        }
        return { kind: 'submitted', site: row as SiteRow, inserted, answer } as const;
      });
    },

    /** The live (under 24 h old) answer stored for a key, if any. */
    async findAnswer(scope: string, key: string): Promise<StoredAnswer | null> {
      const { rows } = await pool.query<StoredAnswer>(FIND_ANSWER_SQL, [scope, key]);
      return rows[0] ?? null;
    },

    /** Forgets keys past their 24 hours (at most `limit` per call); returns how many. */
    async deleteExpiredIdempotencyKeys(limit = 5000): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM idempotency_keys
           WHERE created_at < now() - make_interval(secs => ${TTL_SECONDS})
           LIMIT $1))`,
        [limit],
      );
      return rowCount ?? 0;
    },
  };
}
export type SubmissionStore = ReturnType<typeof createSubmissionStore>;
