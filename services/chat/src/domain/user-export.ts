// chat's part of a user's data export (docs/decisions/034-data-export.md), from the rows its
// store read: pure, so what is shown and what stays inside is tested without a database.
import type { ChatExportPart, SenderLocation } from '@svc/types';
import { exportModeration } from '@svc/service-kit';
import type { ChatUserRows } from '../store/user-export-store.js';

/** A visitor's audit target is the keyed hash of their address: it never leaves chat. */
const VISITOR_TARGET = /^ip:.*/s;

export function toChatExportPart(userId: string, rows: ChatUserRows): ChatExportPart {
  return {
    data: {
      messages: rows.messages.map((m) => ({
        id: m.id,
        type: m.type,
        content: m.content,
        sender_name: m.senderName,
        sender_location: m.senderLocation as SenderLocation | null,
        like_count: m.likeCount,
        created_at: m.createdAt.toISOString(),
        deleted_at: m.deletedAt?.toISOString() ?? null,
      })),
      likes: rows.likes.map((l) => ({
        message_id: l.messageId,
        created_at: l.createdAt.toISOString(),
      })),
      mute:
        rows.mutedUntil && rows.mutedUntil > rows.readAt
          ? { muted_until: rows.mutedUntil.toISOString() }
          : null,
    },
    moderation: exportModeration('chat', userId, rows.audit, (e) =>
      e.targetId.replace(VISITOR_TARGET, 'ip'),
    ),
  };
}
