// Application listing interface under /api/v1 (docs/api-reference.md, docs/decisions/003-app-store-api-keys.md, docs/decisions/004-app-store-rules.md).
import { z } from 'zod';
import { limitText, text } from './text-schema.js';
import { Id, IsoDateTime, OffsetPaginationMeta, OffsetPaginationQuery } from './common.js';
import {
  APP_CATEGORIES,
  APP_CHAIN_MAX_LENGTH,
  APP_DESCRIPTION_MAX_LENGTH,
  APP_NAME_MAX_LENGTH,
  APP_OPEN_MODES,
  APP_STATUSES,
  APP_TYPES,
  APP_WITHDRAWAL_RETENTION_DAYS,
  APP_URL_MAX_LENGTH,
  EXACT_TOTAL_LIMIT,
  ICON_SVG_MAX_LENGTH,
  REPORT_DETAIL_MAX_LENGTH,
  REPORT_REASONS,
  SDK_VERSION_MAX_LENGTH,
  SEARCH_MAX_LENGTH,
} from './constants.js';

export const AppCategory = z.enum(APP_CATEGORIES);
export type AppCategory = z.infer<typeof AppCategory>;

export const AppType = z.enum(APP_TYPES);
export type AppType = z.infer<typeof AppType>;

export const AppOpenMode = z.enum(APP_OPEN_MODES);
export type AppOpenMode = z.infer<typeof AppOpenMode>;

export const AppStatus = z.enum(APP_STATUSES);
export type AppStatus = z.infer<typeof AppStatus>;

export const ReportReason = z.enum(REPORT_REASONS);
export type ReportReason = z.infer<typeof ReportReason>;


// ---- field rules (docs/decisions/004-app-store-rules.md) -------------------------------------------------------

export const AppSlug = z
  .string()
  .min(3)
  .max(64)
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    'Slug must be lower-case letters and digits separated by single hyphens',
  );
export type AppSlug = z.infer<typeof AppSlug>;

export const AppName = text(APP_NAME_MAX_LENGTH, { trim: true, min: 1 });
export type AppName = z.infer<typeof AppName>;
export const AppDescription = text(APP_DESCRIPTION_MAX_LENGTH);
export type AppDescription = z.infer<typeof AppDescription>;

/** `https://` only; the prefix check also refuses forms like `https:host` that URL parsing accepts. */
export const AppUrl = limitText(
  z.url({ protocol: /^https$/, message: 'URL must be a valid https:// address' }),
  APP_URL_MAX_LENGTH,
).regex(/^https:\/\//i, 'URL must start with https://');
export type AppUrl = z.infer<typeof AppUrl>;

export const AppChain = text(APP_CHAIN_MAX_LENGTH, { trim: true, min: 1 });
export type AppChain = z.infer<typeof AppChain>;

export const HexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Colour must be #rrggbb');
export type HexColor = z.infer<typeof HexColor>;

export const IconSvg = text(ICON_SVG_MAX_LENGTH);
export type IconSvg = z.infer<typeof IconSvg>;

export const TechTags = z.array(text(32, { trim: true, min: 1 })).max(10);
export type TechTags = z.infer<typeof TechTags>;

/** Semantic Versioning 2.0.0 (the official regular expression). */
export const SemVer = text(SDK_VERSION_MAX_LENGTH).regex(
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/,
    'Must be a semver version such as 1.2.3',
  );
export type SemVer = z.infer<typeof SemVer>;

// ---- records --------------------------------------------------------------------------

/** Every field of the App table; fields optional on submit are null until set. */
export const App = z.object({
  id: Id,
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  category: AppCategory,
  app_type: AppType,
  open_mode: AppOpenMode,
  status: AppStatus,
  downloads: z.number().int().nonnegative(),
  author_name: z.string(),
  chain: z.string().nullable(),
  icon_gradient_from: HexColor.nullable(),
  icon_gradient_to: HexColor.nullable(),
  icon_svg: z.string().nullable(),
  tech_tags: z.array(z.string()),
  svc_sdk_version: z.string().nullable(),
});
export type App = z.infer<typeof App>;

/** True when the app has an SVG icon (served as an image by GET /api/v1/apps/{slug}/icon). */
const HasIcon = z
  .boolean()
  .meta({ description: 'The app has an SVG icon, an image at GET /api/v1/apps/{slug}/icon' });

/**
 * The fields the public listing returns: no SVG (lists stay small), only whether there is
 * one; pages show it as an image from GET /api/v1/apps/{slug}/icon.
 */
export const AppListItem = App.pick({
  id: true,
  slug: true,
  name: true,
  description: true,
  url: true,
  category: true,
  app_type: true,
  open_mode: true,
  status: true,
  downloads: true,
  author_name: true,
  icon_gradient_from: true,
  icon_gradient_to: true,
}).extend({ has_icon: HasIcon });
export type AppListItem = z.infer<typeof AppListItem>;

export const AppDetail = App.extend({
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  report_count: z.number().int().nonnegative(),
});
export type AppDetail = z.infer<typeof AppDetail>;

// ---- path parameters -------------------------------------------------------------------

/** Any string: an unknown or malformed slug is a 404, not a 400. */
/** Any non-empty slug in a path: an unknown one is a 404, not a 400. */
const SlugPathParam = z
  .string()
  .min(1)
  .meta({ param: { description: 'The app’s slug (its URL name)' } });
export const AppSlugParams = z.object({ slug: SlugPathParam });
export type AppSlugParams = z.infer<typeof AppSlugParams>;

/** Headers of GET /api/v1/apps/{slug}/icon (the SVG is an image: no script, nothing loaded). */
export const APP_ICON_HEADERS = {
  'Content-Type': 'image/svg+xml',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'public, max-age=300',
} as const;
/** The 404 message of an approved app that has no icon. */
export const APP_HAS_NO_ICON = 'App has no icon';

export const ApiKeyParams = z.object({
  slug: SlugPathParam,
  id: Id.meta({ param: { description: 'The key’s id (from GET /api/v1/apps/{slug}/keys)' } }),
});
export type ApiKeyParams = z.infer<typeof ApiKeyParams>;

// ---- listing ---------------------------------------------------------------------------

export const AppListQuery = OffsetPaginationQuery.extend({
  category: AppCategory.optional(),
  app_type: AppType.optional(),
  /** Searches name, description and tech_tags; capped to keep queries cheap. */
  q: text(SEARCH_MAX_LENGTH, { trim: true })
    .optional()
    .meta({
      param: {
        description: 'Words to find in name, description and tech_tags (Chinese works too)',
      },
    }),
});
export type AppListQuery = z.infer<typeof AppListQuery>;

/**
 * The listing's page facts: `total` is exact up to EXACT_TOTAL_LIMIT matches, else an
 * estimate (`total_exact` false); `has_more` is always exact.
 */
export const AppListMeta = OffsetPaginationMeta.extend({
  total_exact: z.boolean().meta({
    description: `Whether total is a count (up to ${EXACT_TOTAL_LIMIT} matches) or an estimate rounded to two significant digits`,
  }),
  has_more: z.boolean().meta({ description: 'Whether an app follows this page' }),
});
export type AppListMeta = z.infer<typeof AppListMeta>;

export const AppListResponse = z.object({
  apps: z.array(AppListItem),
  meta: AppListMeta,
});
export type AppListResponse = z.infer<typeof AppListResponse>;

export const AppDetailResponse = z.object({ app: AppDetail });
export type AppDetailResponse = z.infer<typeof AppDetailResponse>;

// ---- submit / update -------------------------------------------------------------------

export const SubmitAppBody = z.object({
  slug: AppSlug,
  name: AppName,
  url: AppUrl,
  description: AppDescription.default(''),
  category: AppCategory.default('tools'),
  app_type: AppType.default('web'),
  open_mode: AppOpenMode.default('iframe'),
  chain: AppChain.optional(),
});
export type SubmitAppBody = z.infer<typeof SubmitAppBody>;

export const SubmitAppResponse = z.object({
  id: Id,
  slug: z.string(),
  status: z.literal('approved'),
});
export type SubmitAppResponse = z.infer<typeof SubmitAppResponse>;

/**
 * PATCH body: strict so a typo or a non-updatable field (slug, url, status...) is a 400
 * rather than silently ignored. `null` clears a field that is nullable in the record.
 */
export const UpdateAppBody = z.strictObject({
  name: AppName.optional(),
  description: AppDescription.optional(),
  icon_gradient_from: HexColor.nullable().optional(),
  icon_gradient_to: HexColor.nullable().optional(),
  icon_svg: IconSvg.nullable().optional(),
  tech_tags: TechTags.optional(),
  category: AppCategory.optional(),
  chain: AppChain.nullable().optional(),
  svc_sdk_version: SemVer.nullable().optional(),
});
export type UpdateAppBody = z.infer<typeof UpdateAppBody>;

export const UpdateAppResponse = AppDetailResponse;
export type UpdateAppResponse = z.infer<typeof UpdateAppResponse>;

// ---- reports ---------------------------------------------------------------------------

export const ReportAppBody = z.object({
  reason: ReportReason.default('other'),
  detail: text(REPORT_DETAIL_MAX_LENGTH).optional(),
});
export type ReportAppBody = z.infer<typeof ReportAppBody>;

export const ReportAppResponse = z.object({
  success: z.boolean(),
  report_count: z.number().int().nonnegative(),
  blocked: z.boolean(),
  message: z.string(),
});
export type ReportAppResponse = z.infer<typeof ReportAppResponse>;

// ---- the caller ------------------------------------------------------------------------

export const AppStoreUser = z.object({
  id: Id,
  /** The auth username. */
  display_name: z.string(),
  email: z.string(),
  /** Gravatar-style URL of the email's SHA-256. */
  avatar_url: z.string(),
});
export type AppStoreUser = z.infer<typeof AppStoreUser>;

export const AppStoreMeResponse = z.object({ user: AppStoreUser });
export type AppStoreMeResponse = z.infer<typeof AppStoreMeResponse>;

/** Longest appeal of a block an author may write. */
export const APPEAL_TEXT_MAX = 1000;

/** The author's appeal of the current block (one per block; restoring the app closes it). */
export const AppAppealView = z.object({
  text: z.string(),
  created_at: IsoDateTime,
});
export type AppAppealView = z.infer<typeof AppAppealView>;

/**
 * Why and when the caller's app was blocked (docs/decisions/009-moderation-audit-log.md): `reports` for the
 * automatic block of the 5th reporter (reason: the reports counted per reason, never who
 * reported), `moderator` for a block by hand (reason: the moderator's words).
 */
export const AppBlockInfo = z.object({
  blocked_at: IsoDateTime,
  by: z.enum(['reports', 'moderator']),
  reason_summary: z.string(),
  /** null until the author appeals this block */
  appeal: AppAppealView.nullable(),
  /** true while this block has no appeal yet (POST /api/v1/me/apps/{slug}/appeal) */
  can_appeal: z.boolean(),
});
export type AppBlockInfo = z.infer<typeof AppBlockInfo>;

/**
 * One of the caller's own apps: the whole record, plus has_icon like the listing's items,
 * plus `block` (null unless the app is blocked), plus when it was withdrawn and when it is
 * deleted for good (both null unless withdrawn).
 */
export const MyApp = App.extend({
  has_icon: HasIcon,
  block: AppBlockInfo.nullable(),
  withdrawn_at: IsoDateTime.nullable().meta({
    description: 'When the author withdrew the app (null unless status is withdrawn)',
  }),
  purge_at: IsoDateTime.nullable().meta({
    description: `When the withdrawn app is deleted for good: ${APP_WITHDRAWAL_RETENTION_DAYS} days after its withdrawal (null unless withdrawn)`,
  }),
});
export type MyApp = z.infer<typeof MyApp>;

/** The caller's own apps in any status, newest first. */
export const MyAppsResponse = z.object({ apps: z.array(MyApp) });
export type MyAppsResponse = z.infer<typeof MyAppsResponse>;

/** Installed apps, approved only. */
export const InstalledAppsResponse = z.object({ apps: z.array(AppListItem) });
export type InstalledAppsResponse = z.infer<typeof InstalledAppsResponse>;

export const InstallAppResponse = z.object({ installed: z.literal(true) });
export type InstallAppResponse = z.infer<typeof InstallAppResponse>;

// ---- withdrawal ------------------------------------------------------------------------

/**
 * DELETE /api/v1/apps/{slug} (docs/decisions/033-withdraw-an-app.md). Without `permanent`
 * the app is withdrawn: gone from every public read and desktop, its keys refused, kept in
 * its author's list for the retention days. `permanent=true` deletes it for good at once
 * (a live app is withdrawn and deleted in one step). Its slug stays reserved for the
 * retention days from the withdrawal either way.
 */
export const WithdrawAppQuery = z.object({
  permanent: z
    .enum(['true', 'false'])
    .default('false')
    .meta({
      param: {
        description: `true: delete the app for good now, instead of after ${APP_WITHDRAWAL_RETENTION_DAYS} days as withdrawn`,
      },
    }),
});
export type WithdrawAppQuery = z.infer<typeof WithdrawAppQuery>;

// ---- API keys --------------------------------------------------------------------------

export const API_KEY_PREFIX = 'svc_live_';
export const ApiKeySecret = z.string().regex(/^svc_live_[A-Za-z0-9_-]+$/);
export type ApiKeySecret = z.infer<typeof ApiKeySecret>;

/** The only response that carries the secret; it is never shown again. */
export const CreateApiKeyResponse = z.object({
  id: Id,
  key: ApiKeySecret,
  prefix: z.string().min(1),
  created_at: IsoDateTime,
});
export type CreateApiKeyResponse = z.infer<typeof CreateApiKeyResponse>;

export const ApiKeyListItem = z.object({
  id: Id,
  prefix: z.string().min(1),
  created_at: IsoDateTime,
  last_used_at: IsoDateTime.nullable(),
  revoked_at: IsoDateTime.nullable(),
});
export type ApiKeyListItem = z.infer<typeof ApiKeyListItem>;

export const ApiKeyListResponse = z.object({ keys: z.array(ApiKeyListItem) });
export type ApiKeyListResponse = z.infer<typeof ApiKeyListResponse>;

// ---- categories ------------------------------------------------------------------------

export const CategoriesResponse = z.object({ categories: z.array(AppCategory) });
export type CategoriesResponse = z.infer<typeof CategoriesResponse>;
