// "Export my data" (GET /api/auth/export; docs/decisions/034-data-export.md): everything the
// platform holds about the caller, one section per service, each item with its timestamps,
// every list in the order things happened (oldest first).
// auth assembles it from its own tables and each service's part, asked over the internal
// path (internal.ts). Left out on purpose: secrets and hashes (API key hashes, login-code
// hashes, keyed hashes of IP addresses and networks), other people's identities (reporters
// of one's apps, the moderators who acted), and what is not tied to the account (a
// visitor's activity before logging in is kept by a keyed IP hash only).
import { z } from 'zod';
import { Id, IsoDateTime } from './common.js';
import { ApiKeyListItem, AppSlug, MyApp, ReportReason } from './app-store.js';
import { ChatMessageType, SenderLocation } from './chat.js';

/** Version of the export's shape, so a reader can tell later versions apart. */
export const EXPORT_FORMAT = 'svc-export/1';

/** `svc-export-2026-11-21.json`: the download name, by the UTC day of the export. */
export const exportFileName = (at: Date): string =>
  `svc-export-${at.toISOString().slice(0, 10)}.json`;

// ---- auth: the account ------------------------------------------------------------------

export const ExportUser = z.object({
  id: Id,
  email: z.string(),
  username: z.string().min(1),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  /** null unless the user is a moderator: by MODERATOR_EMAILS (configuration) or a grant. */
  moderator: z
    .object({
      source: z.enum(['configuration', 'grant']),
      /** the moderator who granted the role (user id); null for the configuration */
      granted_by: Id.nullable(),
      granted_at: IsoDateTime.nullable(),
    })
    .nullable(),
  /** The moderator role this user granted to others (the grants still standing). */
  moderator_grants_given: z.array(z.object({ user_id: Id, granted_at: IsoDateTime })),
  /**
   * The login code waiting for the user's address, if any (one at most: a code is deleted
   * when used and replaced by the next one; only its hash is kept, never shown).
   */
  pending_login_code: z
    .object({
      created_at: IsoDateTime,
      expires_at: IsoDateTime,
      attempts: z.number().int().min(0),
    })
    .nullable(),
});
export type ExportUser = z.infer<typeof ExportUser>;

// ---- sites ------------------------------------------------------------------------------

/** A site an item of the export is about. */
export const ExportSiteRef = z.object({ id: Id, url: z.string(), title: z.string() });
export type ExportSiteRef = z.infer<typeof ExportSiteRef>;

export const ExportSites = z.object({
  /** Sites the user submitted while logged in; `first` when theirs was the first submission. */
  submissions: z.array(
    z.object({ site: ExportSiteRef, submitted_at: IsoDateTime, first: z.boolean() }),
  ),
  /** Sites the user claimed (ownership verified by the meta tag). */
  claims: z.array(z.object({ site: ExportSiteRef, claimed_at: IsoDateTime.nullable() })),
  bookmarks: z.array(z.object({ site: ExportSiteRef, created_at: IsoDateTime })),
  boosts: z.array(
    z.object({
      id: Id,
      site: ExportSiteRef,
      /** the UTC day the boost counted for (YYYY-MM-DD) */
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      created_at: IsoDateTime,
    }),
  ),
  /** Idempotency-Key values of the user's submissions, kept 24 hours for retries. */
  idempotency_keys: z.array(z.object({ key: z.string(), created_at: IsoDateTime })),
});
export type ExportSites = z.infer<typeof ExportSites>;

// ---- chat -------------------------------------------------------------------------------

export const ExportChat = z.object({
  /** Messages the user sent while logged in, deleted ones (by a moderator) included. */
  messages: z.array(
    z.object({
      id: Id,
      type: ChatMessageType,
      content: z.string(),
      sender_name: z.string(),
      sender_location: SenderLocation.nullable(),
      like_count: z.number().int().min(0),
      created_at: IsoDateTime,
      deleted_at: IsoDateTime.nullable(),
    }),
  ),
  /** Messages the user liked while logged in. */
  likes: z.array(z.object({ message_id: Id, created_at: IsoDateTime })),
  /** The mute running now on the user's account, if any (its history is in `moderation`). */
  mute: z.object({ muted_until: IsoDateTime }).nullable(),
});
export type ExportChat = z.infer<typeof ExportChat>;

// ---- app store --------------------------------------------------------------------------

/** An app an item of the export is about. */
export const ExportAppRef = z.object({ id: Id, slug: AppSlug, name: z.string() });
export type ExportAppRef = z.infer<typeof ExportAppRef>;

export const ExportApps = z.object({
  /**
   * The identity snapshot app-store keeps of a developer (so an API key can answer
   * GET /api/v1/me); null for a user who never submitted an app or made a key.
   */
  developer: z
    .object({ email: z.string(), username: z.string(), updated_at: IsoDateTime })
    .nullable(),
  /** The user's apps, every field, with the current block (when, why, the appeal). */
  apps: z.array(MyApp.extend({ created_at: IsoDateTime, updated_at: IsoDateTime })),
  /** API keys of the user's apps: metadata only, never the secret or its hash. */
  api_keys: z.array(ApiKeyListItem.extend({ app: ExportAppRef })),
  /** Apps in the user's desktop; `removed_at` set once uninstalled. */
  installs: z.array(
    z.object({ app: ExportAppRef, installed_at: IsoDateTime, removed_at: IsoDateTime.nullable() }),
  ),
  /** Reports the user made about apps. */
  reports: z.array(
    z.object({
      id: z.string(),
      app: ExportAppRef,
      reason: ReportReason,
      detail: z.string().nullable(),
      created_at: IsoDateTime,
      resolved_at: IsoDateTime.nullable(),
    }),
  ),
  /** The user's appeals of blocks of their apps; `closed_at` set when the app was restored. */
  appeals: z.array(
    z.object({
      id: z.string(),
      app: ExportAppRef,
      text: z.string(),
      created_at: IsoDateTime,
      closed_at: IsoDateTime.nullable(),
    }),
  ),
});
export type ExportApps = z.infer<typeof ExportApps>;

// ---- moderation: the audit logs of app-store, sites and chat ----------------------------

const AuditStateValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** One audit entry as the export shows it. */
export const ExportAuditEntry = z.object({
  /** the service whose audit log holds the entry */
  service: z.enum(['app-store', 'sites', 'chat']),
  id: z.string(),
  at: IsoDateTime,
  action: z.string(),
  target_type: z.string(),
  /** a visitor muted in the chat is `ip` (the keyed hash of the address stays inside) */
  target_id: z.string(),
  reason: z.string(),
  before: z.record(z.string(), AuditStateValue).nullable(),
  after: z.record(z.string(), AuditStateValue).nullable(),
});
export type ExportAuditEntry = z.infer<typeof ExportAuditEntry>;

export const ExportModeration = z.object({
  /** Entries the user's own actions wrote: moderator actions, appeals. */
  by_you: z.array(ExportAuditEntry),
  /**
   * Entries about the user or their content (their apps, sites, messages, their account in
   * the chat) written by someone else: the actor is a role, never a moderator's id.
   */
  about_you: z.array(ExportAuditEntry.extend({ actor: z.enum(['system', 'moderator']) })),
});
export type ExportModeration = z.infer<typeof ExportModeration>;

// ---- the whole export -------------------------------------------------------------------

export const ExportResponse = z
  .object({
    format: z.literal(EXPORT_FORMAT),
    exported_at: IsoDateTime,
    user: ExportUser,
    sites: ExportSites,
    chat: ExportChat,
    apps: ExportApps,
    /** Entries of the three audit logs (app-store, sites, chat). */
    moderation: ExportModeration,
  })
  .meta({
    description:
      'Everything the platform holds about the caller, one section per service, every list oldest first; no secrets, hashes or other people’s identities',
  });
export type ExportResponse = z.infer<typeof ExportResponse>;

// ---- the internal parts (GET /internal/users/{id}/export of each service) ---------------

const exportPart = <S extends z.ZodType>(data: S) =>
  z.object({ data, moderation: ExportModeration });

/** sites' answer: its section and the entries of its audit log. */
export const SitesExportPart = exportPart(ExportSites);
export type SitesExportPart = z.infer<typeof SitesExportPart>;
/** chat's answer. */
export const ChatExportPart = exportPart(ExportChat);
export type ChatExportPart = z.infer<typeof ChatExportPart>;
/** app-store's answer. */
export const AppsExportPart = exportPart(ExportApps);
export type AppsExportPart = z.infer<typeof AppsExportPart>;
