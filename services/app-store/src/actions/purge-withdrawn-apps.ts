// Deleting withdrawn apps for good once their retention days have passed, and ending their
// slugs' reservations (docs/decisions/033-withdraw-an-app.md). Swept by each API process
// when it starts and every minute after (main.ts). The state is in PostgreSQL (purge_at,
// reserved_until), so nothing is lost when a process stops: the next sweep, in any replica,
// deletes what is due. Each app is deleted once, with one audit entry, however many
// replicas sweep at once (the store skips rows another sweep holds).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '@svc/service-kit';
import type { WithdrawalStore } from '../store/withdrawal-store.js';

export const PURGE_BATCH = 100;
export const PURGE_INTERVAL_MS = 60_000;
/** A withdrawn app still there this long after its purge_at counts as overdue (an alert). */
export const PURGE_OVERDUE_AFTER_MS = 60 * 60_000;

export interface PurgeOutcome {
  /** withdrawn apps deleted for good */
  apps: number;
  /** slug reservations that ended */
  reservations: number;
}

/** One sweep: every due app in batches, then the ended reservations. */
export async function purgeWithdrawnApps(
  withdrawals: WithdrawalStore,
  now: Date,
): Promise<PurgeOutcome> {
  let apps = 0;
  for (;;) {
    const deleted = await withdrawals.purgeDue(now, PURGE_BATCH);
    apps += deleted;
    if (deleted < PURGE_BATCH) break;
  }
  return { apps, reservations: await withdrawals.expireReservations(now) };
}

function purgeMetrics(registry: Registry | undefined, withdrawals: WithdrawalStore, now: () => Date) {
  if (!registry) return { purged: (_n: number) => {}, failed: () => {} };
  const purged = new Counter({
    name: 'app_store_apps_purged_total',
    help: 'Withdrawn apps deleted for good by the sweep, their retention days over',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'app_store_purge_sweep_failures_total',
    help: 'Purge sweeps that failed (PostgreSQL unreachable) and are tried again next minute',
    registers: [registry],
  });
  new Gauge({
    name: 'app_store_apps_purge_overdue',
    help: 'Withdrawn apps still kept an hour or more after their purge time (-1: PostgreSQL unreachable)',
    registers: [registry],
    async collect() {
      try {
        this.set(await withdrawals.overdue(now(), PURGE_OVERDUE_AFTER_MS));
      } catch {
        this.set(-1);
      }
    },
  });
  return { purged: (n: number) => purged.inc(n), failed: () => failures.inc() };
}

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged, counted and tried next time. */
export function startWithdrawnAppPurge(opts: {
  withdrawals: WithdrawalStore;
  logger: Logger;
  registry?: Registry;
  intervalMs?: number;
  now?: () => Date;
}) {
  const now = opts.now ?? (() => new Date());
  const metrics = purgeMetrics(opts.registry, opts.withdrawals, now);
  let running: Promise<void> | undefined;
  const sweep = async () => {
    try {
      const outcome = await purgeWithdrawnApps(opts.withdrawals, now());
      metrics.purged(outcome.apps);
      if (outcome.apps + outcome.reservations > 0)
        opts.logger.info(outcome, 'deleted withdrawn apps for good, ended slug reservations');
    } catch (err) {
      metrics.failed();
      opts.logger.warn({ err: (err as Error).message }, 'purge sweep failed');
    }
  };
  /** One sweep at a time: a sweep still running when the timer fires is not doubled. */
  const run = () =>
    (running ??= sweep().finally(() => {
      running = undefined;
    }));
  const timer = setInterval(() => void run(), opts.intervalMs ?? PURGE_INTERVAL_MS);
  timer.unref();
  return {
    /** Runs one sweep now (or joins the running one). */
    sweep: run,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
