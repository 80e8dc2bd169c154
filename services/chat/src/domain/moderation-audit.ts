// The audit entries of chat moderation (docs/decisions/024-audit-log-per-service.md): who deleted which message or
// muted which sender, why, and the state before and after. A sender is named by what chat
// already keeps: `user:<user id>` for a logged-in sender, `ip:<keyed IP hash>` for a visitor
// (never a raw address, see schema.prisma).
import type { AuditEntryInput } from '@svc/service-kit';

export type ChatAuditAction = 'message.deleted' | 'sender.muted';

/** Who wrote a message (a mute and the audit need it); a system message has none. */
export type MessageSender = { kind: 'user'; userId: string } | { kind: 'visitor'; ipHash: string };

/**
 * The sender a message's row names: its user id when a logged-in user wrote it, else the
 * keyed hash of the visitor's address; null for a system message and for a message whose
 * sender deleted their account (both columns cleared).
 */
export function senderOfRow(row: {
  senderUserId: string | null;
  senderIpHash: string | null;
}): MessageSender | null {
  if (row.senderUserId) return { kind: 'user', userId: row.senderUserId };
  if (row.senderIpHash) return { kind: 'visitor', ipHash: row.senderIpHash };
  return null;
}

/** The audit target id of a sender, the same key the mute itself uses. */
export const senderTargetId = (sender: MessageSender): string =>
  sender.kind === 'user' ? `user:${sender.userId}` : `ip:${sender.ipHash}`;

/** A moderator deleted a listed message. */
export function messageDeletedEntry(input: {
  actor: string;
  messageId: string;
  deletedAt: Date;
}): AuditEntryInput {
  return {
    actor: input.actor,
    action: 'message.deleted' satisfies ChatAuditAction,
    targetType: 'message',
    targetId: input.messageId,
    reason: '',
    before: { deleted: false },
    after: { deleted: true, deleted_at: input.deletedAt.toISOString() },
  };
}

/**
 * A moderator muted the sender of a message: the mute it replaced (null when none was
 * running), the new end, and the message it was given for.
 */
export function senderMutedEntry(input: {
  actor: string;
  sender: MessageSender;
  messageId: string;
  reason: string;
  minutes: number;
  previousUntil: Date | null;
  until: Date;
}): AuditEntryInput {
  return {
    actor: input.actor,
    action: 'sender.muted' satisfies ChatAuditAction,
    targetType: 'sender',
    targetId: senderTargetId(input.sender),
    reason: input.reason,
    before: { muted_until: input.previousUntil?.toISOString() ?? null },
    after: {
      muted_until: input.until.toISOString(),
      minutes: input.minutes,
      message_id: input.messageId,
      sender_kind: input.sender.kind,
    },
  };
}
