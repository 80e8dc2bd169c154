// The data export (docs/decisions/034-data-export.md), put together from auth's rows and
// each service's part: pure, so the shape, the order and what is left out are unit-tested.
import {
  EXPORT_FORMAT,
  type ExportAuditEntry,
  type ExportModeration,
  type ExportResponse,
  type ExportUser,
} from '@svc/types';
import type { ExportParts } from '../clients/user-data-services.js';
import type { UserExportRows } from '../store/store.js';

/** auth's own section: the account, the moderator role, the grants made, a waiting code. */
export function toExportUser(rows: UserExportRows, configuredModerator: boolean): ExportUser {
  const { user, grantsGiven, pendingCode } = rows;
  const grant = user.moderatorGrant;
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    moderator: configuredModerator
      ? { source: 'configuration', granted_by: null, granted_at: null }
      : grant
        ? { source: 'grant', granted_by: grant.grantedBy, granted_at: grant.createdAt.toISOString() }
        : null,
    moderator_grants_given: grantsGiven.map((g) => ({
      user_id: g.userId,
      granted_at: g.createdAt.toISOString(),
    })),
    pending_login_code: pendingCode && {
      created_at: pendingCode.createdAt.toISOString(),
      expires_at: pendingCode.expiresAt.toISOString(),
      attempts: pendingCode.attempts,
    },
  };
}

/** Oldest first; at the same instant by service, then by the entry's id (a number). */
const byTime = (a: ExportAuditEntry, b: ExportAuditEntry) =>
  a.at.localeCompare(b.at) ||
  a.service.localeCompare(b.service) ||
  Number(BigInt(a.id) - BigInt(b.id));

/** The three audit logs' entries as one timeline of each kind. */
export function mergeModeration(parts: readonly ExportModeration[]): ExportModeration {
  return {
    by_you: parts.flatMap((p) => p.by_you).sort(byTime),
    about_you: parts.flatMap((p) => p.about_you).sort(byTime),
  };
}

/** The whole export, one section per service. */
export function assembleExport(user: ExportUser, parts: ExportParts, at: Date): ExportResponse {
  return {
    format: EXPORT_FORMAT,
    exported_at: at.toISOString(),
    user,
    sites: parts.sites.data,
    chat: parts.chat.data,
    apps: parts['app-store'].data,
    moderation: mergeModeration([
      parts['app-store'].moderation,
      parts.sites.moderation,
      parts.chat.moderation,
    ]),
  };
}
