// The kit's public surface, by folder: http/ (the Express runtime), auth/ (sessions and
// keys), data/ (PostgreSQL, ids, the audit log, the in-process cache), redis/ (clients and
// the event stream), queues/ (BullMQ, outboxes, watchdog), ops/ (settings, logs, metrics,
// health, the process lifecycle). Test support is `@svc/service-kit/testing`.
export * from './http/app.js';
export * from './http/client-ip.js';
export * from './http/errors.js';
export * from './http/has-body.js';
export * from './http/rate-limit.js';
export * from './http/refuse-invalid-text.js';
export * from './http/request-id.js';
export * from './http/route-pattern.js';
export * from './http/server-spans.js';
export * from './auth/jwt-keys.js';
export * from './auth/session.js';
export * from './auth/session-keys.js';
export * from './auth/session-token.js';
export * from './data/audit-log.js';
export * from './data/database-url.js';
export * from './data/ids.js';
export * from './data/loading-cache.js';
export * from './data/migrations.js';
export * from './data/pg-transaction.js';
export * from './data/prisma-adapter.js';
export * from './redis/redis.js';
export * from './redis/event-bus.js';
export * from './queues/job-outbox.js';
export type { OutboxRelay, RelayOptions } from './queues/outbox-relay.js';
export * from './queues/queue-metrics.js';
export * from './queues/system-message-outbox.js';
export * from './queues/system-messages.js';
export * from './queues/worker-watchdog.js';
export * from './ops/config.js';
export * from './ops/dependency-errors.js';
export * from './ops/health.js';
export * from './ops/lifecycle.js';
export * from './ops/logger.js';
export * from './ops/metrics.js';
export * from './ops/ops.js';
export * from './ops/runtime.js';
export * from './ops/service-catalog.js';
