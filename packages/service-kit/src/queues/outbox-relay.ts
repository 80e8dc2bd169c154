// The transactional outbox mechanism. A request that causes a follow-up job writes it as a
// row of an outbox table in its service's schema, in the same transaction as the change; a
// relay then moves rows to their BullMQ queue, so an acknowledged change always gets its
// follow-up, even when Redis is down at that moment or the process dies right after
// answering. Delivery is at least once: a row is deleted only after BullMQ has the job, and
// every job has a deterministic id, so a re-post after a crash between the two is dropped by
// BullMQ. Replicas share rows with FOR UPDATE SKIP LOCKED. With tracing on, each row is
// posted in a span continuing the writer's trace context.
import type pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { withTimeout } from '../ops/health.js';
import type { Logger } from '../ops/logger.js';
import { inPgTransaction } from '../data/pg-transaction.js';
import { withExtractedContext } from '@svc/tracing';

/** A running relay of one outbox table. */
export interface OutboxRelay {
  /** A row was just committed: relay soon rather than at the next poll. */
  nudge(): void;
  /** Relays everything waiting now; resolves with how many rows were handled. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

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
export interface OutboxSource<Row extends { id: string }> {
  table: string;
  /** The SELECT list; must include `id::text AS id`. */
  columns: string;
  metrics: MetricNames;
  /** Posts the row's job; false when the row can never be a valid job (it is dropped). */
  post(row: Row): Promise<boolean>;
  /** Where the row keeps the writer's trace context. */
  traceOf(row: Row): unknown;
}

export function startOutboxRelay<Row extends { id: string }>(
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
