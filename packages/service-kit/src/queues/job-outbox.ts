// The job outbox: rows of a service's `job_outbox` table (queue, job_name, job_id, payload),
// relayed to the queues the service hands the relay (sites' `scrape` jobs). The writer's
// trace context travels in the payload, so the table needs no column for it.
import type { JobsOptions, Queue } from 'bullmq';
import { injectTraceContext, type TraceCarrier } from '@svc/tracing';
import { startOutboxRelay, type OutboxRelay, type RelayOptions } from './outbox-relay.js';

/**
 * The job outbox table, created by a service that queues jobs through it:
 * `id BIGSERIAL PRIMARY KEY, queue TEXT NOT NULL, job_name TEXT NOT NULL, job_id TEXT,
 * payload JSONB NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now()`.
 */
export const JOB_OUTBOX_TABLE = 'job_outbox';

/** The row insert: $1 queue, $2 job name, $3 job id (null: `<service>-<row id>`), $4 payload. */
export const INSERT_OUTBOX_JOB_SQL = `INSERT INTO ${JOB_OUTBOX_TABLE} (queue, job_name, job_id, payload) VALUES ($1, $2, $3, $4::jsonb)`;

/** A queue the job outbox may post to, with the options of its jobs. */
export interface OutboxQueue {
  queue: Pick<Queue, 'add'>;
  options?: JobsOptions;
}

export interface JobOutboxOptions extends RelayOptions {
  /** Queues by name (the rows' `queue` column); a row naming another queue is dropped. */
  queues: Record<string, OutboxQueue>;
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
