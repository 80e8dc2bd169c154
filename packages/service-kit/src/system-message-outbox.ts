// Transactional outboxes. A request that causes a follow-up (a chat system message for a new
// site or a blocked app, a scrape job for a submitted site) writes it as a row of an outbox
// table in its service's schema, in the same transaction as the change itself; a relay then
// moves rows to their BullMQ queue. So an acknowledged change always gets its follow-up,
// even when Redis is down at that moment or the process dies right after answering.
//
// Two outbox tables share one relay mechanism:
// - `system_message_outbox` (content_key, content_params): chat's system messages, relayed
//   to the `chat-system` queue (startSystemMessageOutbox / startSystemMessageRelay);
// - `job_outbox` (queue, job_name, job_id, payload): a job for any named queue the service
//   hands the relay (startJobOutbox), e.g. sites' `scrape` jobs.
//
// Trace context (tracing on, @svc/tracing): a system message row stores the writer's
// `traceparent` in its column, a job row in its payload (so a `job_outbox` table needs no
// column for it); the relay posts each row in a span continuing that context and puts its own
// context into the job's data, where the worker continues it.
//
// Delivery is at least once: a row is deleted only after BullMQ has the job, and every job
// has a deterministic id (the row's own `job_id`, else `<service>-<row id>`), so a re-post
// after a crash between the two is dropped by BullMQ while the first job is still kept.
import type pg from 'pg';
import type { JobsOptions, Queue } from 'bullmq';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SystemMessageJob } from '@svc/types';
import { withTimeout } from './health.js';
import type { Logger } from './logger.js';
import type { Redis } from './redis.js';
import { createSystemMessageProducer, type SystemMessageProducer } from './system-messages.js';
import { inPgTransaction } from './pg-transaction.js';
import { injectTraceContext, withExtractedContext, type TraceCarrier } from '@svc/tracing';

/** The table every producing service creates in its own schema (see its migration). */
export const SYSTEM_MESSAGE_OUTBOX_TABLE = 'system_message_outbox';

/**
 * The row insert, for services writing through raw SQL: parameters $1 key, $2 params. The
 * table also has `traceparent TEXT` (NULL here: a writer that traces sets it, see sites).
 */
export const INSERT_SYSTEM_MESSAGE_SQL = `INSERT INTO ${SYSTEM_MESSAGE_OUTBOX_TABLE} (content_key, content_params) VALUES ($1, $2::jsonb)`;

/**
 * The job outbox table, created by a service that queues jobs through it:
 * `id BIGSERIAL PRIMARY KEY, queue TEXT NOT NULL, job_name TEXT NOT NULL, job_id TEXT,
 * payload JSONB NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now()`.
 */
export const JOB_OUTBOX_TABLE = 'job_outbox';

/** The row insert: $1 queue, $2 job name, $3 job id (null: `<service>-<row id>`), $4 payload. */
export const INSERT_OUTBOX_JOB_SQL = `INSERT INTO ${JOB_OUTBOX_TABLE} (queue, job_name, job_id, payload) VALUES ($1, $2, $3, $4::jsonb)`;

/** A running relay of one outbox table. */
export interface OutboxRelay {
  /** A row was just committed: relay soon rather than at the next poll. */
  nudge(): void;
  /** Relays everything waiting now; resolves with how many rows were handled. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

/** The system-message relay (the name predates the job outbox). */
export type SystemMessageOutbox = OutboxRelay;

/** What every relay needs, whatever its table. */
export interface RelayOptions {
  pool: pg.Pool;
  logger: Logger;
  /** Prefix of generated BullMQ job ids, so two services' row ids never collide. */
  service: string;
  /** Poll period for rows whose nudge was lost (e.g. Redis was down). */
  intervalMs?: number;
  batch?: number;
  postTimeoutMs?: number;
  /**
   * Where to register the relay's metrics: rows relayed, failed batches, and the rows
   * waiting (read at scrape time). A growing backlog is what to alert on.
   */
  registry?: Registry;
}

export interface OutboxOptions extends RelayOptions {
  producer: Pick<SystemMessageProducer, 'post'>;
}

/** A queue the job outbox may post to, with the options of its jobs. */
export interface OutboxQueue {
  queue: Pick<Queue, 'add'>;
  options?: JobsOptions;
}

export interface JobOutboxOptions extends RelayOptions {
  /** Queues by name (the rows' `queue` column); a row naming another queue is dropped. */
  queues: Record<string, OutboxQueue>;
}

interface MetricNames {
  relayed: string;
  failures: string;
  waiting: string;
  what: string;
}

function outboxMetrics(
  registry: Registry | undefined,
  pool: pg.Pool,
  table: string,
  names: MetricNames,
) {
  if (!registry) return { relayed: (_n: number) => {}, failed: () => {} };
  const relayed = new Counter({
    name: names.relayed,
    help: `${names.what} moved from the ${table} table to their queue`,
    registers: [registry],
  });
  const failures = new Counter({
    name: names.failures,
    help: `${table} relay batches that failed (Redis or PostgreSQL unreachable) and will be retried`,
    registers: [registry],
  });
  new Gauge({
    name: names.waiting,
    help: `${names.what} committed but not yet relayed (-1: PostgreSQL unreachable)`,
    registers: [registry],
    async collect() {
      try {
        const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
        this.set(Number(rows[0]?.n ?? 0));
      } catch {
        this.set(-1);
      }
    },
  });
  return { relayed: (n: number) => relayed.inc(n), failed: () => failures.inc() };
}

/** One outbox table: what to read of a row and how to post it. */
interface OutboxSource<Row extends { id: string }> {
  table: string;
  /** The SELECT list; must include `id::text AS id`. */
  columns: string;
  metrics: MetricNames;
  /** Posts the row's job; false when the row can never be a valid job (it is dropped). */
  post(row: Row): Promise<boolean>;
  /** Where the row keeps the writer's trace context. */
  traceOf(row: Row): unknown;
}

function startOutboxRelay<Row extends { id: string }>(
  opts: RelayOptions,
  source: OutboxSource<Row>,
): OutboxRelay {
  const batch = opts.batch ?? 100;
  const postTimeoutMs = opts.postTimeoutMs ?? 2000;
  const metrics = outboxMetrics(opts.registry, opts.pool, source.table, source.metrics);
  let running: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  let stopped = false;

  /** One batch in one transaction; rows locked SKIP LOCKED so replicas share the work. */
  async function relayBatch(): Promise<number> {
    // A failed batch rolls back and is retried; its rows stay until BullMQ has them.
    const relayed = await inPgTransaction(opts.pool, async (client) => {
      const { rows } = await client.query<Row>(
        `SELECT ${source.columns} FROM ${source.table}
         ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batch],
      );
      for (const row of rows) {
        // A row that can never be a valid job would block nothing (it is deleted), but is logged.
        const posted = await withTimeout(
          withExtractedContext(source.traceOf(row), `outbox relay ${source.table}`, () =>
            source.post(row),
          ),
          postTimeoutMs,
          'Redis (queue)',
        );
        if (!posted) {
          opts.logger.error(
            { id: row.id, table: source.table },
            'outbox row is not a valid job; dropped',
          );
        }
      }
      if (rows.length > 0) {
        await client.query(`DELETE FROM ${source.table} WHERE id = ANY($1::bigint[])`, [
          rows.map((r) => r.id),
        ]);
      }
      return rows.length;
    });
    metrics.relayed(relayed);
    return relayed;
  }

  async function drainAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await relayBatch();
      total += n;
      if (n < batch) return total;
    }
  }

  function drain(): Promise<number> {
    if (!running) {
      running = drainAll().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The drain under way may have read before the caller's commit: one more after it.
    next ??= running
      .catch(() => 0)
      .then(() => {
        next = undefined;
        return drain();
      });
    return next;
  }

  function logFailure(err: Error) {
    metrics.failed();
    opts.logger.warn({ err: err.message, table: source.table }, 'outbox: relay failed, will retry');
  }

  const timer = setInterval(() => {
    drain().catch(logFailure);
  }, opts.intervalMs ?? 5000);
  timer.unref();

  return {
    nudge() {
      if (!stopped) drain().catch(logFailure);
    },
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await (next ?? running)?.catch(() => {});
    },
  };
}

/**
 * Relays `system_message_outbox` to the chat-system queue, job id `<service>-<row id>`;
 * metrics `system_messages_relayed_total`, `system_message_relay_failures_total`,
 * `system_message_outbox_waiting`.
 */
export function startSystemMessageOutbox(opts: OutboxOptions): SystemMessageOutbox {
  return startOutboxRelay<{
    id: string;
    content_key: string;
    content_params: unknown;
    traceparent: string | null;
  }>(opts, {
    table: SYSTEM_MESSAGE_OUTBOX_TABLE,
    columns: 'id::text AS id, content_key, content_params, traceparent',
    traceOf: (row) => row,
    metrics: {
      relayed: 'system_messages_relayed_total',
      failures: 'system_message_relay_failures_total',
      waiting: 'system_message_outbox_waiting',
      what: 'Chat system messages',
    },
    async post(row) {
      const parsed = SystemMessageJob.safeParse({
        content_key: row.content_key,
        content_params: row.content_params,
      });
      if (!parsed.success) return false;
      await opts.producer.post(parsed.data, { jobId: `${opts.service}-${row.id}` });
      return true;
    },
  });
}

/**
 * Relays `job_outbox` rows to the queues in `opts.queues`: `queue.add(job_name, payload,
 * { ...options, jobId: job_id ?? '<service>-<row id>' })`. A row naming a queue the relay
 * was not given is dropped (logged). Metrics `outbox_jobs_relayed_total`,
 * `job_outbox_relay_failures_total`, `job_outbox_waiting`.
 */
export function startJobOutbox(opts: JobOutboxOptions): OutboxRelay {
  return startOutboxRelay<{
    id: string;
    queue: string;
    job_name: string;
    job_id: string | null;
    payload: unknown;
  }>(opts, {
    table: JOB_OUTBOX_TABLE,
    columns: 'id::text AS id, queue, job_name, job_id, payload',
    traceOf: (row) => row.payload,
    metrics: {
      relayed: 'outbox_jobs_relayed_total',
      failures: 'job_outbox_relay_failures_total',
      waiting: 'job_outbox_waiting',
      what: 'Queue jobs',
    },
    async post(row) {
      const target = Object.hasOwn(opts.queues, row.queue) ? opts.queues[row.queue] : undefined;
      if (!target) return false;
      // The relay's own context replaces the writer's (its span is the job's parent).
      const data = isObject(row.payload)
        ? injectTraceContext<TraceCarrier>({ ...row.payload })
        : row.payload;
      await target.queue.add(row.job_name, data, {
        ...target.options,
        jobId: row.job_id ?? `${opts.service}-${row.id}`,
      });
      return true;
    },
  });
}

/**
 * The outbox relay with its own producer on `connection` (a `forQueues` client the caller
 * owns), as the producing services run it; stop() also closes the producer.
 */
export function startSystemMessageRelay(
  opts: Omit<OutboxOptions, 'producer'> & { connection: Redis; redisPrefix: string },
): SystemMessageOutbox {
  const producer = createSystemMessageProducer(opts.connection, opts.redisPrefix);
  const outbox = startSystemMessageOutbox({ ...opts, producer });
  return {
    nudge: outbox.nudge,
    drain: outbox.drain,
    async stop() {
      await outbox.stop();
      await producer.close();
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
