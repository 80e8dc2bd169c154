// Deleting messages older than CHAT_RETENTION_DAYS, with their likes
// (docs/decisions/036-chat-retention.md). Run by the `chat-retention` job
// (worker/retention-worker.ts). Each batch is one short DELETE; rows another transaction holds
// are skipped, so replicas sweeping at once, likes and moderators never wait on a sweep for
// long, and what a sweep skipped or did not reach the next one deletes.
import { Counter, Gauge, type Registry } from 'prom-client';
import { withTimeout } from '@svc/service-kit';
import { overdueSeconds } from '../domain/retention.js';
import type { RetentionStore } from '../store/retention-store.js';

export interface SweepOutcome {
  /** messages deleted (their likes went with them) */
  deleted: number;
  /** DELETE statements run, the last one short of a full batch */
  batches: number;
}

/**
 * One sweep: batches of `batchSize` until one comes back short, i.e. nothing older than
 * `cutoff` is left that no one else holds. `onBatch` runs after every batch (metrics,
 * the job's progress); a failure anywhere ends the sweep, the batches before it stay done.
 */
export async function sweepOldMessages(
  store: RetentionStore,
  opts: {
    cutoff: Date;
    batchSize: number;
    onBatch?: (deletedNow: number, soFar: SweepOutcome) => Promise<unknown> | void;
  },
): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { deleted: 0, batches: 0 };
  for (;;) {
    const deleted = await store.deleteOlderThan(opts.cutoff, opts.batchSize);
    outcome.deleted += deleted;
    outcome.batches += 1;
    await opts.onBatch?.(deleted, { ...outcome });
    if (deleted < opts.batchSize) return outcome;
  }
}

/** The sweep's series in /metrics (k8s/README.md "Monitoring", alert SvcChatRetentionOverdue). */
export function retentionMetrics(
  registry: Registry | undefined,
  store: RetentionStore,
  retentionDays: number,
  now: () => Date = () => new Date(),
) {
  if (!registry) return { deleted: (_n: number) => {}, failed: () => {} };
  const deleted = new Counter({
    name: 'chat_retention_messages_deleted_total',
    help: 'Chat messages deleted (with their likes) by the retention sweep, older than CHAT_RETENTION_DAYS',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'chat_retention_sweep_failures_total',
    help: 'Retention sweeps that failed (PostgreSQL unreachable); the next scheduled one tries again',
    registers: [registry],
  });
  new Gauge({
    name: 'chat_retention_overdue_seconds',
    help: 'How long past CHAT_RETENTION_DAYS the oldest chat message is (0: none; -1: PostgreSQL unreachable)',
    registers: [registry],
    async collect() {
      try {
        const oldest = await withTimeout(store.oldestCreatedAt(), 2000, 'PostgreSQL');
        this.set(overdueSeconds(oldest, now(), retentionDays));
      } catch {
        this.set(-1);
      }
    },
  });
  return { deleted: (n: number) => deleted.inc(n), failed: () => failures.inc() };
}
