// Moderation of apps under /api/v1/moderation (moderators only; docs/decisions/009-moderation-audit-log.md).
// Reporters are never identified: a report is shown by its opaque id only.
import { z } from 'zod';
import { text } from './text-schema.js';
import { IsoDateTime, LimitParam, OffsetPaginationMeta, OffsetPaginationQuery } from './common.js';
import { APPEAL_TEXT_MAX, AppSlug, AppStatus, ReportReason } from './app-store.js';

/** Counts of open reports per reason; reasons without reports are left out. */
export const ReportReasonCounts = z.partialRecord(ReportReason, z.number().int().min(1));
export type ReportReasonCounts = z.infer<typeof ReportReasonCounts>;

export const ModerationQueueQuery = OffsetPaginationQuery;
export type ModerationQueueQuery = z.infer<typeof ModerationQueueQuery>;

/** An author's open appeal of the app's current block, as moderators see it. */
export const QueueAppeal = z.object({
  text: z.string(),
  created_at: IsoDateTime,
});
export type QueueAppeal = z.infer<typeof QueueAppeal>;

/**
 * One app with open reports, or a blocked app whose author appealed (then it is listed even
 * without open reports: open_reporters 0, reasons {}, latest_report_at null).
 */
export const ModerationQueueItem = z.object({
  slug: AppSlug,
  name: z.string(),
  status: AppStatus,
  /** distinct users with an open report */
  open_reporters: z.number().int().min(0),
  reasons: ReportReasonCounts,
  /** null when the app is listed for its appeal only */
  latest_report_at: IsoDateTime.nullable(),
  /** the open appeal of the current block, if any */
  appeal: QueueAppeal.nullable(),
});
export type ModerationQueueItem = z.infer<typeof ModerationQueueItem>;

export const ModerationQueueResponse = z.object({
  apps: z.array(ModerationQueueItem),
  meta: OffsetPaginationMeta,
});
export type ModerationQueueResponse = z.infer<typeof ModerationQueueResponse>;

export const AppReportEntry = z.object({
  /** opaque per-report id (never the reporter) */
  id: z.string(),
  reason: ReportReason,
  detail: z.string().nullable(),
  created_at: IsoDateTime,
  /** null while the report is open */
  resolved_at: IsoDateTime.nullable(),
  open: z.boolean(),
});
export type AppReportEntry = z.infer<typeof AppReportEntry>;

/** An author's appeal of one block; closed when the app is restored. */
export const AppAppealEntry = z.object({
  id: z.string(),
  text: z.string(),
  created_at: IsoDateTime,
  /** null while the appeal is open */
  closed_at: IsoDateTime.nullable(),
  open: z.boolean(),
});
export type AppAppealEntry = z.infer<typeof AppAppealEntry>;

/** An app's reports and its author's appeals, newest first (open and resolved). */
export const AppReportHistoryResponse = z.object({
  app: z.object({ slug: AppSlug, name: z.string(), status: AppStatus }),
  reports: z.array(AppReportEntry),
  appeals: z.array(AppAppealEntry),
});
export type AppReportHistoryResponse = z.infer<typeof AppReportHistoryResponse>;

/** Why a moderator restores or blocks an app (kept in the audit log). */
export const ModerationReasonBody = z.object({ reason: text(1000, { trim: true, min: 1 }) });
export type ModerationReasonBody = z.infer<typeof ModerationReasonBody>;

export const DismissReportsBody = z.object({ reason: text(1000, { trim: true }).optional() });
export type DismissReportsBody = z.infer<typeof DismissReportsBody>;

export const ModerationActionResponse = z.object({
  slug: AppSlug,
  status: AppStatus,
  /** open reports this action resolved */
  resolved_reports: z.number().int().min(0),
});
export type ModerationActionResponse = z.infer<typeof ModerationActionResponse>;

/**
 * The query of every service's audit log (app-store, sites, chat: docs/decisions/009-moderation-audit-log.md),
 * `target_type` limited to the targets that service audits.
 */
export const auditQueryOf = <const T extends readonly [string, ...string[]]>(targetTypes: T) =>
  z.object({
    target_type: z.enum(targetTypes).optional(),
    /** only with target_type */
    target_id: text(200, { min: 1 }).optional(),
    cursor: text(40).optional(),
    limit: LimitParam,
  });

export const AuditQuery = auditQueryOf(['app']);
export type AuditQuery = z.infer<typeof AuditQuery>;

/** GET /api/moderation/sites/audit: entries about sites (site.hidden, site.restored). */
export const SiteAuditQuery = auditQueryOf(['site']);
export type SiteAuditQuery = z.infer<typeof SiteAuditQuery>;

/**
 * GET /api/moderation/chat/audit: `message` (message.deleted, by message id) and `sender`
 * (sender.muted, by `user:<user id>` or `ip:<keyed IP hash>`, never a raw address).
 */
export const ChatAuditQuery = auditQueryOf(['message', 'sender']);
export type ChatAuditQuery = z.infer<typeof ChatAuditQuery>;

/** Why an audit entry's target is gone (the entry itself is never removed). */
export const AUDIT_TARGET_REMOVALS = ['retention'] as const;
export type AuditTargetRemoval = (typeof AUDIT_TARGET_REMOVALS)[number];

const AuditState = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const AuditEntryView = z.object({
  id: z.string(),
  at: IsoDateTime,
  /** a user id, or `system` for automatic actions */
  actor: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  reason: z.string(),
  before: AuditState.nullable(),
  after: AuditState.nullable(),
  /** chat's audit endpoint sets it for a message its retention sweep deleted (CHAT_RETENTION_DAYS) */
  target_removed: z.enum(AUDIT_TARGET_REMOVALS).optional().meta({
    description:
      'Set when the target no longer exists, and why (retention: a chat message deleted once older than the retention period); absent while it exists',
  }),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;

export const AuditPageResponse = z.object({
  entries: z.array(AuditEntryView),
  /** pass as `cursor` for the next (older) page; null on the last page */
  next_cursor: z.string().nullable(),
});
export type AuditPageResponse = z.infer<typeof AuditPageResponse>;

// ---- the author's side (GET /api/v1/me/apps/{slug}/audit, POST .../appeal) ------------

/** An author's appeal of their app's current block. */
export const AppealBody = z.object({ text: text(APPEAL_TEXT_MAX, { trim: true, min: 1 }) });
export type AppealBody = z.infer<typeof AppealBody>;

export const AppealResponse = z.object({
  slug: AppSlug,
  appeal: z.object({ text: z.string(), created_at: IsoDateTime }),
});
export type AppealResponse = z.infer<typeof AppealResponse>;

export const AuthorAuditQuery = z.object({
  cursor: text(40).optional(),
  limit: LimitParam,
});
export type AuthorAuditQuery = z.infer<typeof AuthorAuditQuery>;

/**
 * An audit entry as the app's author sees it: the actor is a role, never a moderator's user
 * id (docs/decisions/009-moderation-audit-log.md): `system` (automatic), `author` (the caller), `moderator`.
 */
export const AuthorAuditEntry = AuditEntryView.extend({
  actor: z.enum(['system', 'moderator', 'author']),
});
export type AuthorAuditEntry = z.infer<typeof AuthorAuditEntry>;

export const AuthorAuditPageResponse = z.object({
  entries: z.array(AuthorAuditEntry),
  /** pass as `cursor` for the next (older) page; null on the last page */
  next_cursor: z.string().nullable(),
});
export type AuthorAuditPageResponse = z.infer<typeof AuthorAuditPageResponse>;

// ---- e-mail notices to authors (the notify-email queue; docs/decisions/025-block-appeals-and-notices.md) -----------

/**
 * Durable BullMQ queue of e-mails about a user's content: app-store writes a job into its
 * `job_outbox` in the transaction of the block or restore; auth's worker looks the user up
 * and sends the notice with its mailer.
 */
export const NOTIFY_EMAIL_QUEUE = 'notify-email';

const AppNoticeApp = z.object({ slug: AppSlug, name: z.string() });

export const NotifyEmailJob = z.discriminatedUnion('template', [
  z.object({
    template: z.literal('app_blocked'),
    /** auth user id of the app's author */
    user_id: z.string().min(1),
    app: AppNoticeApp,
    by: z.enum(['reports', 'moderator']),
    /** the reports counted per reason, or the moderator's reason */
    reason_summary: z.string(),
    at: IsoDateTime,
  }),
  z.object({
    template: z.literal('app_restored'),
    user_id: z.string().min(1),
    app: AppNoticeApp,
    /** the moderator's reason */
    reason_summary: z.string(),
    at: IsoDateTime,
  }),
]);
export type NotifyEmailJob = z.infer<typeof NotifyEmailJob>;
export type NotifyEmailTemplate = NotifyEmailJob['template'];
