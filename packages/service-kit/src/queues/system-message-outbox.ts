// Chat's system messages through the outbox: rows of a service's `system_message_outbox`
// table (content_key, content_params, traceparent), relayed to the durable `chat-system`
// queue with job id `<service>-<row id>`.
import { SystemMessageJob } from '@svc/types';
import type { Redis } from '../redis/redis.js';
import { createSystemMessageProducer, type SystemMessageProducer } from './system-messages.js';
import { startOutboxRelay, type OutboxRelay, type RelayOptions } from './outbox-relay.js';

/** The table every producing service creates in its own schema (see its migration). */
export const SYSTEM_MESSAGE_OUTBOX_TABLE = 'system_message_outbox';

/**
 * The row insert, for services writing through raw SQL: parameters $1 key, $2 params. The
 * table also has `traceparent TEXT` (NULL here: a writer that traces sets it, see sites).
 */
export const INSERT_SYSTEM_MESSAGE_SQL = `INSERT INTO ${SYSTEM_MESSAGE_OUTBOX_TABLE} (content_key, content_params) VALUES ($1, $2::jsonb)`;

/** The relay of chat's system messages. */
export type SystemMessageOutbox = OutboxRelay;

export interface OutboxOptions extends RelayOptions {
  producer: Pick<SystemMessageProducer, 'post'>;
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
