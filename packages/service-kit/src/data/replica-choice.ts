// The pure rules of read replicas (docs/decisions/037-read-replicas.md): how far behind the
// primary a standby is, whether reads may go to it, and which one a read takes.
import type { Lsn } from './lsn.js';

/** The primary's WAL position (`pg_current_wal_lsn()`) as the monitor saw it at `at` (ms). */
export interface PrimarySample {
  lsn: Lsn;
  at: number;
}

/** What a standby answered: its replay position and the age of its last replayed commit. */
export interface StandbySample {
  /** `pg_last_wal_replay_lsn()`; null before it has replayed anything. */
  replayLsn: Lsn | null;
  /** now − `pg_last_xact_replay_timestamp()` in ms; null before it has replayed a commit. */
  replayAgeMs: number | null;
}

/**
 * How old the standby's data may be, in ms (an upper bound): 0 when it has replayed what the
 * primary had written at the last sample. Else the smaller of two bounds:
 * - the time since the last primary sample at or below its replay position (it holds all the
 *   primary had then; this one compares the monitor's own clock with itself);
 * - the age of its last replayed commit. Alone this is wrong after an idle spell: a primary
 *   quiet for an hour makes a standby that is up to date look an hour behind the moment one
 *   new commit is on its way, which is why an equal position counts as no lag.
 */
export function replicaLagMs(
  standby: StandbySample,
  history: PrimarySample[],
  now: number,
): number {
  const { replayLsn, replayAgeMs } = standby;
  if (replayLsn === null) return Infinity;
  const byAge = replayAgeMs === null ? Infinity : replayAgeMs;
  const latest = history[history.length - 1];
  if (!latest) return Math.max(0, byAge);
  if (replayLsn >= latest.lsn) return 0;
  let byHistory = Infinity;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.lsn <= replayLsn) {
      byHistory = now - history[i]!.at;
      break;
    }
  }
  return Math.max(0, Math.min(byHistory, byAge));
}

/** What the router needs to know of each replica. */
export interface ReplicaView {
  name: string;
  /** Answering as a standby (in recovery). */
  up: boolean;
  /** Up and no further behind than the bound: reads may go to it. */
  usable: boolean;
  replayLsn: Lsn | null;
  /** Infinity while down or before its first answer. */
  lagMs: number;
}

export function isUsable(up: boolean, lagMs: number, maxLagMs: number): boolean {
  return up && lagMs <= maxLagMs;
}

/**
 * The replica a read takes: the first usable one, starting at `turn` (round robin), that has
 * replayed `minLsn` (a caller's last write, or this process's for a cache load); undefined
 * when none has, and the read goes to the primary.
 */
export function chooseReplica(
  views: readonly ReplicaView[],
  minLsn: Lsn | undefined,
  turn: number,
): number | undefined {
  const n = views.length;
  for (let k = 0; k < n; k++) {
    const i = (turn + k) % n;
    const v = views[i]!;
    if (!v.usable) continue;
    if (minLsn === undefined || (v.replayLsn !== null && v.replayLsn >= minLsn)) return i;
  }
  return undefined;
}

/** The readiness detail: undefined when every replica is usable, else what is wrong. */
export function replicaProblems(
  views: readonly ReplicaView[],
  maxLagMs: number,
): string | undefined {
  const problems = views.flatMap((v) => {
    if (v.usable) return [];
    if (!v.up) return [`${v.name} down`];
    const lag = Number.isFinite(v.lagMs) ? `${(v.lagMs / 1000).toFixed(1)} s` : 'unknown';
    return [`${v.name} behind by ${lag} (bound ${maxLagMs / 1000} s)`];
  });
  if (problems.length === 0) return undefined;
  const left = views.some((v) => v.usable) ? 'the other replicas' : 'the primary';
  return `${problems.join('; ')}: skipped, reads go to ${left}`;
}
