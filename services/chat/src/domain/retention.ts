// How long chat keeps a message (docs/decisions/036-chat-retention.md): every message, of any
// type, deleted or not, goes with its likes once older than CHAT_RETENTION_DAYS. Pure: the
// sweep (actions/sweep-old-messages.ts), its metrics and the tests share it.

const DAY_MS = 24 * 3600_000;

/** CHAT_RETENTION_DAYS when unset. */
export const DEFAULT_RETENTION_DAYS = 30;
/** Rows per DELETE statement: each is its own short transaction and holds its locks briefly. */
export const RETENTION_BATCH = 1000;
/** Between two sweeps (the BullMQ job scheduler's `every`). */
export const RETENTION_EVERY_MS = 10 * 60_000;

/** Messages created before this instant are past their retention at `now`. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * How far past its retention the oldest message is, in whole seconds; 0 when none is
 * (`oldest` null: the room is empty).
 */
export function overdueSeconds(oldest: Date | null, now: Date, retentionDays: number): number {
  if (!oldest) return 0;
  const late = retentionCutoff(now, retentionDays).getTime() - oldest.getTime();
  return late > 0 ? Math.floor(late / 1000) : 0;
}

/**
 * The messages of a page of audit entries that are gone: an entry's `message` target that no
 * longer exists. Nothing else deletes a message row (a moderator's delete and an account
 * deletion keep it), so such a message was removed by the retention sweep.
 */
export function removedByRetention(
  entries: ReadonlyArray<{ targetType: string; targetId: string }>,
  existing: ReadonlySet<string>,
): Set<string> {
  return new Set(
    entries
      .filter((e) => e.targetType === 'message' && !existing.has(e.targetId))
      .map((e) => e.targetId),
  );
}
