// Audit entries (docs/decisions/009-moderation-audit-log.md): pure builders, so every moderation action writes the
// same shape. Reasons summarise reports as counts per reason, never who reported.
import { SYSTEM_ACTOR, type AuditEntryInput as KitAuditEntryInput } from '@svc/service-kit';
import {
  APP_WITHDRAWAL_RETENTION_DAYS,
  REPORT_REASONS,
  type AppStatus,
  type ReportReason,
} from '@svc/types';

export { SYSTEM_ACTOR, type AuditState } from '@svc/service-kit';

export type AuditAction =
  | 'app.blocked'
  | 'app.restored'
  | 'app.appealed'
  | 'app.withdrawn'
  | 'app.deleted'
  | 'reports.dismissed'
  | 'moderator.granted'
  | 'moderator.revoked';

export type AuditTargetType = 'app';

/** The kit's entry (service-kit audit-log.ts), narrowed to the app-store's actions. */
export interface AuditEntryInput extends KitAuditEntryInput {
  action: AuditAction;
  targetType: AuditTargetType;
}

export type ReasonCounts = Partial<Record<ReportReason, number>>;

/**
 * "5 reports: 3 spam, 1 malware, 1 other": most frequent reason first, ties in the
 * documented order of reasons; reasons without reports are left out.
 */
export function summariseReportReasons(counts: ReasonCounts): string {
  const present = REPORT_REASONS.map((reason, order) => ({
    reason,
    order,
    n: counts[reason] ?? 0,
  })).filter((r) => r.n > 0);
  const total = present.reduce((sum, r) => sum + r.n, 0);
  if (total === 0) return '0 reports';
  present.sort((a, b) => b.n - a.n || a.order - b.order);
  const parts = present.map((r) => `${r.n} ${r.reason}`).join(', ');
  return `${total} report${total === 1 ? '' : 's'}: ${parts}`;
}

/** The entry of an automatic block: the report that reached the threshold blocked the app. */
export function automaticBlockEntry(appId: string, counts: ReasonCounts): AuditEntryInput {
  return {
    actor: SYSTEM_ACTOR,
    action: 'app.blocked',
    targetType: 'app',
    targetId: appId,
    reason: summariseReportReasons(counts),
    before: { status: 'approved' },
    after: { status: 'blocked' },
  };
}

/**
 * The entry of a moderator's action on an app: the moderator's user id, their reason (for a
 * dismissal without one, the summary of the dismissed reports), the status and open reports
 * before and after.
 */
export function moderatorEntry(input: {
  actor: string;
  action: AuditAction;
  appId: string;
  reason: string | undefined;
  dismissed: ReasonCounts;
  before: { status: string; openReports: number };
  after: { status: string; openReports: number };
}): AuditEntryInput {
  const reason = input.reason?.trim() || summariseReportReasons(input.dismissed);
  return {
    actor: input.actor,
    action: input.action,
    targetType: 'app',
    targetId: input.appId,
    reason,
    before: { status: input.before.status, open_reports: input.before.openReports },
    after: { status: input.after.status, open_reports: input.after.openReports },
  };
}

/** The entry of an author's appeal: their user id, their text, the app stays blocked. */
export function appealEntry(input: { authorId: string; appId: string; text: string }): AuditEntryInput {
  return {
    actor: input.authorId,
    action: 'app.appealed',
    targetType: 'app',
    targetId: input.appId,
    reason: input.text,
    before: { status: 'blocked', appealed: false },
    after: { status: 'blocked', appealed: true },
  };
}

/** The entry of an author's withdrawal (docs/decisions/033-withdraw-an-app.md): no reason asked. */
export function withdrawalEntry(input: {
  authorId: string;
  appId: string;
  before: AppStatus;
  purgeAt: Date;
}): AuditEntryInput {
  return {
    actor: input.authorId,
    action: 'app.withdrawn',
    targetType: 'app',
    targetId: input.appId,
    reason: '',
    before: { status: input.before },
    after: { status: 'withdrawn', purge_at: input.purgeAt.toISOString() },
  };
}

export const DELETED_BY_AUTHOR = 'deleted for good by its author';
export const DELETED_AFTER_RETENTION = `deleted for good ${APP_WITHDRAWAL_RETENTION_DAYS} days after its withdrawal`;

/**
 * The entry of a withdrawn app deleted for good, by its author (actor: their id) or by the
 * purge sweep (`system`). The entries before it stay: the log is append-only.
 */
export function deletionEntry(input: { actor: string; appId: string }): AuditEntryInput {
  return {
    actor: input.actor,
    action: 'app.deleted',
    targetType: 'app',
    targetId: input.appId,
    reason: input.actor === SYSTEM_ACTOR ? DELETED_AFTER_RETENTION : DELETED_BY_AUTHOR,
    before: { status: 'withdrawn' },
    after: null,
  };
}

/** Who acted, as the app's author is told: a role, never a moderator's user id. */
export type AuthorVisibleActor = 'system' | 'moderator' | 'author';

/**
 * The author sees `system`, `author` (their own entries: appeals, withdrawals) or `moderator` for anyone
 * else: moderators stay anonymous to the people they moderate (docs/decisions/025-block-appeals-and-notices.md).
 */
export function actorForAuthor(actor: string, authorId: string): AuthorVisibleActor {
  if (actor === SYSTEM_ACTOR) return 'system';
  return actor === authorId ? 'author' : 'moderator';
}
