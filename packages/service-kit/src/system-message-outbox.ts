// Transactional outbox for chat's system messages. A request that causes one (a new site, a
// blocked app) writes the message into its service's `system_message_outbox` table in the
// same transaction as the change itself; this relay then moves rows to the BullMQ queue.
// So an acknowledged change always gets its message, even when Redis is down at that
// moment or the process dies right after answering.
//
// Delivery is at least once: a row is deleted only after BullMQ has the job, and the job id
// is derived from the row (`<service>-<id>`), so a re-post after a crash between the two is
// dropped by BullMQ while the first job is still kept.
import type pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SystemMessageJob } from '@svc/types';
import { withTimeout } from './health.js';
import type { Logger } from './logger.js';
import type { Redis } from 'ioredis';
import { createSystemMessageProducer, type SystemMessageProducer } from './system-messages.js';

/** The table every producing service creates in its own schema (see its migration). */
export const SYSTEM_MESSAGE_OUTBOX_TABLE = 'system_message_outbox';

/** The row insert, for services writing through raw SQL: parameters $1 key, $2 params. */
export const INSERT_SYSTEM_MESSAGE_SQL = `INSERT INTO ${SYSTEM_MESSAGE_OUTBOX_TABLE} (content_key, content_params) VALUES ($1, $2::jsonb)`;

export interface SystemMessageOutbox {
  /** A row was just committed: relay soon rather than at the next poll. */
  nudge(): void;
  /** Relays everything waiting now; resolves with how many messages were sent. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

export interface OutboxOptions {
  pool: pg.Pool;
  producer: Pick<SystemMessageProducer, 'post'>;
  logger: Logger;
  /** Prefix of BullMQ job ids, so two services' row ids never collide. */
  service: string;
  /** Poll period for rows whose nudge was lost (e.g. Redis was down). */
  intervalMs?: number;
  batch?: number;
  postTimeoutMs?: number;
  /**
   * Where to register `system_messages_relayed_total`, `system_message_relay_failures_total`
   * and `system_message_outbox_waiting` (rows not yet relayed, read at scrape time): a
   * growing backlog is what to alert on.
   */
  registry?: Registry;
}

function outboxMetrics(registry: Registry | undefined, pool: pg.Pool) {
  if (!registry) return { relayed: (_n: number) => {}, failed: () => {} };
  const relayed = new Counter({
    name: 'system_messages_relayed_total',
    help: 'Chat system messages moved from the outbox table to the chat-system queue',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'system_message_relay_failures_total',
    help: 'Outbox relay batches that failed (Redis or PostgreSQL unreachable) and will be retried',
    registers: [registry],
  });
  new Gauge({
    name: 'system_message_outbox_waiting',
    help: 'Chat system messages committed but not yet relayed (-1: PostgreSQL unreachable)',
    registers: [registry],
    async collect() {
      try {
        const { rows } = await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${SYSTEM_MESSAGE_OUTBOX_TABLE}`,
        );
        this.set(Number(rows[0]?.n ?? 0));
      } catch {
        this.set(-1);
      }
    },
  });
  return { relayed: (n: number) => relayed.inc(n), failed: () => failures.inc() };
}

export function startSystemMessageOutbox(opts: OutboxOptions): SystemMessageOutbox {
  const batch = opts.batch ?? 100;
  const postTimeoutMs = opts.postTimeoutMs ?? 2000;
  const metrics = outboxMetrics(opts.registry, opts.pool);
  let running: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  let stopped = false;

  /** One batch in one transaction; rows locked SKIP LOCKED so replicas share the work. */
  async function relayBatch(): Promise<number> {
    const client = await opts.pool.connect();
    // A checked-out client's connection may die (PostgreSQL restarts): the pool only listens
    // to idle clients, and an unheard 'error' event would crash the process. The query in
    // flight fails on its own and the batch is retried.
    const onError = () => {};
    client.on('error', onError);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{
        id: string;
        content_key: string;
        content_params: unknown;
      }>(
        `SELECT id::text, content_key, content_params FROM ${SYSTEM_MESSAGE_OUTBOX_TABLE}
         ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batch],
      );
      for (const row of rows) {
        const parsed = SystemMessageJob.safeParse({
          content_key: row.content_key,
          content_params: row.content_params,
        });
        // A row that can never be a valid job would block nothing (it is deleted), but is logged.
        if (!parsed.success) {
          opts.logger.error(
            { id: row.id },
            'system message outbox row is not a valid job; dropped',
          );
          continue;
        }
        await withTimeout(
          opts.producer.post(parsed.data, { jobId: `${opts.service}-${row.id}` }),
          postTimeoutMs,
          'chat-system queue',
        );
      }
      if (rows.length > 0) {
        await client.query(
          `DELETE FROM ${SYSTEM_MESSAGE_OUTBOX_TABLE} WHERE id = ANY($1::bigint[])`,
          [rows.map((r) => r.id)],
        );
      }
      await client.query('COMMIT');
      metrics.relayed(rows.length);
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
      throw err;
    } finally {
      client.off('error', onError);
      // A client that could not even roll back is not reused: its connection is gone.
      client.release(broken);
    }
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
    opts.logger.warn({ err: err.message }, 'system message outbox: relay failed, will retry');
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
