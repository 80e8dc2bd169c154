// WS_RESUME=false only: Redis pub/sub → every local client (no ids, no resume). Each replica
// subscribes to the kit's events channel, so an event published once by any service reaches
// every client of every replica.
import { eventsChannel, type Logger, type Redis } from '@svc/service-kit';
import { withExtractedContext } from '@svc/tracing';
import { isRelayableEvent } from '../domain/client-message.js';
import { stripTraceContext } from '../domain/event-envelope.js';
import type { Hub } from './hub.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';

/**
 * The subscriber is PINGed this often and must answer within the deadline, or it reconnects
 * (and re-subscribes): a connection gone half-open tells ioredis nothing, and events would
 * stop reaching this replica's clients while every probe passes. On a Redis Cluster the
 * PING goes to a node, not to the subscriber's own connection.
 */
const PING_EVERY_MS = 10_000;
const PING_DEADLINE_MS = 5_000;

/**
 * `subscriber` must be a dedicated client (subscriber mode) with the offline queue on: the
 * subscription is sent as soon as Redis is reachable, so the process starts (and reports
 * not-ready) while Redis is down, and ioredis re-subscribes after every reconnect.
 */
export function startEventRelay(deps: {
  subscriber: Redis;
  redisPrefix: string;
  hub: Hub;
  logger: Logger;
  metrics: RealtimeMetrics;
}): void {
  const channel = eventsChannel(deps.redisPrefix);
  deps.subscriber.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    if (!isRelayableEvent(raw)) {
      deps.metrics.eventsReceived.inc({ result: 'dropped' });
      deps.logger.warn({ size: raw.length }, 'dropped a malformed event');
      return;
    }
    deps.metrics.eventsReceived.inc({ result: 'relayed' });
    // The fan-out continues the publisher's trace (tracing on); clients get `{ event, payload }`.
    const { message, trace } = stripTraceContext(raw);
    withExtractedContext(trace, 'realtime fan-out', () => deps.hub.broadcast(Buffer.from(message)));
  });
  deps.subscriber.subscribe(channel).catch((err: Error) => {
    deps.logger.error({ err: err.message }, 'could not subscribe to the events channel');
  });
  setInterval(() => {
    if (deps.subscriber.status !== 'ready') return;
    const deadline = setTimeout(() => {
      deps.logger.warn({ afterMs: PING_DEADLINE_MS }, 'events subscriber silent: reconnecting it');
      deps.subscriber.disconnect(true);
    }, PING_DEADLINE_MS);
    const answered = () => clearTimeout(deadline);
    deps.subscriber.ping().then(answered, answered);
  }, PING_EVERY_MS).unref();
}
