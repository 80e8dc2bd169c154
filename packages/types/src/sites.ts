// Site sharing: sites, tags, boosts, claims, clicks, bookmarks, daily background
// (docs/api-reference.md, docs/decisions/005-sites.md).
import { z } from 'zod';
import { text } from './text-schema.js';
import { Id, IsoDateTime, PageParam, SiteTag } from './common.js';
import { EXACT_TOTAL_LIMIT, SEARCH_MAX_LENGTH, SITES_MAX_PAGE } from './constants.js';

/** The 400 of a `page` past SITES_MAX_PAGE. */
export const SITES_PAGE_TOO_DEEP = `page goes up to ${SITES_MAX_PAGE}: read further with cursor (the next_cursor of each answer)`;
/** Longest `cursor` accepted (a cursor holds a sort key and a site id of at most 128 characters). */
export const SITES_CURSOR_MAX_LENGTH = 400;
export const MAX_TAGS_PER_SITE = 3;
export const SITE_URL_MAX_LENGTH = 2048;

export const SiteType = z.enum(['website', 'profile']);
export type SiteType = z.infer<typeof SiteType>;

/** Platform identifiers of the 11 recognised social families (docs/decisions/005-sites.md). */
export const SOCIAL_PLATFORMS = [
  'x',
  'github',
  'instagram',
  'linkedin',
  'youtube',
  'tiktok',
  'reddit',
  'medium',
  'threads',
  'bilibili',
  'weibo',
] as const;
export const SocialPlatform = z.enum(SOCIAL_PLATFORMS);
export type SocialPlatform = z.infer<typeof SocialPlatform>;

export const SiteSort = z.enum(['hot', 'recent']);
export type SiteSort = z.infer<typeof SiteSort>;

/**
 * Every field of the Site table. Profile-only fields are null for websites; favicon and
 * Open Graph image are null when the page has none or has not been scraped yet.
 */
export const Site = z.object({
  id: Id,
  url: z.string(),
  title: z.string(),
  description: z.string(),
  favicon_url: z.string().nullable(),
  og_image_url: z.string().nullable(),
  domain: z.string(),
  /** Empty until the worker has tagged the site, then 1–3 of the 11 tags. */
  tags: z.array(SiteTag).max(MAX_TAGS_PER_SITE),
  submit_count: z.number().int().nonnegative(),
  click_count: z.number().int().nonnegative(),
  hot_score: z.number(),
  site_type: SiteType,
  social_platform: SocialPlatform.nullable(),
  social_username: z.string().nullable(),
  boost_count: z.number().int().nonnegative(),
  /** True once someone has proved ownership of the site (POST /api/sites/{id}/claim). */
  is_claimed: z.boolean(),
  is_promoted: z.boolean(),
  first_submitted_at: IsoDateTime,
  last_activity_at: IsoDateTime,
});
export type Site = z.infer<typeof Site>;

/** Path parameter `{id}` of /api/sites/{id}, /api/sites/{id}/… and /api/clicks/{id}. */
export const SiteIdParams = z.object({ id: Id.meta({ param: { description: 'The site’s id' } }) });
export type SiteIdParams = z.infer<typeof SiteIdParams>;

/** Path parameter `{n}` of /sitemap-{n}.xml: a file of the sitemap index, from 1. */
export const SitemapFileParams = z.object({
  n: z
    .string()
    .regex(/^[1-9][0-9]{0,5}$/)
    .meta({ param: { description: 'The file’s number, from 1 (as /sitemap.xml lists them)' } }),
});
export type SitemapFileParams = z.infer<typeof SitemapFileParams>;

// ---- listing ---------------------------------------------------------------------------

export const SiteListQuery = z.object({
  /** Matches title, description, url/domain and tags; capped to keep queries cheap. */
  search: text(SEARCH_MAX_LENGTH, { trim: true })
    .optional()
    .meta({
      param: {
        description:
          'Words to find in title, description, URL or domain and tags (Chinese works too)',
      },
    }),
  tag: SiteTag.optional(),
  sort: SiteSort.default('hot'),
  /** Capped: an OFFSET walks every row it skips (SITES_MAX_OFFSET); `cursor` goes deeper. */
  page: PageParam.pipe(z.number().max(SITES_MAX_PAGE, SITES_PAGE_TOO_DEEP)).meta({
    param: {
      description: `Page number, from 1 (60 sites a page, at most page ${SITES_MAX_PAGE}; deeper, use cursor)`,
    },
  }),
  /** Keyset paging: where the previous answer ended (its `next_cursor`); not with `page`. */
  cursor: text(SITES_CURSOR_MAX_LENGTH, { min: 1 })
    .optional()
    .meta({
      param: {
        description:
          'The next_cursor of a previous answer (same sort): the 60 sites after it, at any depth. Not together with page',
      },
    }),
});
export type SiteListQuery = z.infer<typeof SiteListQuery>;

export const SiteListResponse = z.object({
  sites: z.array(Site),
  /** Exact up to EXACT_TOTAL_LIMIT matches, else an estimate (`total_exact` false). */
  total: z.number().int().nonnegative(),
  total_exact: z.boolean().meta({
    description: `Whether total is a count (up to ${EXACT_TOTAL_LIMIT} matches) or an estimate rounded to two significant digits`,
  }),
  /** The `page` asked for (1 when reading by cursor). */
  page: z.number().int().min(1),
  /** Whether another site follows this page (always exact). */
  hasMore: z.boolean(),
  /** Pass as `cursor` for the next 60 sites; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type SiteListResponse = z.infer<typeof SiteListResponse>;

// ---- one site --------------------------------------------------------------------------

/**
 * GET /api/sites/{id}: the site as the listing shows it (same Site object, is_claimed too).
 * `hidden` appears only for a moderator reading a site hidden by moderation (`true`); for
 * everyone else a hidden site is a 404.
 */
export const GetSiteResponse = z.object({ site: Site.extend({ hidden: z.literal(true).optional() }) });
export type GetSiteResponse = z.infer<typeof GetSiteResponse>;

// ---- submit ----------------------------------------------------------------------------

/** `url` is only bounded here: parsing, http(s) check and normalisation are service rules. */
export const SubmitSiteBody = z.object({
  url: text(SITE_URL_MAX_LENGTH, { trim: true, min: 1 }),
  captchaToken: z.string().min(1).optional(),
});
export type SubmitSiteBody = z.infer<typeof SubmitSiteBody>;

/**
 * Request headers of POST /api/sites. `Idempotency-Key` (IETF httpapi draft): a retry with
 * the same key gets the first answer again and is not counted as another submission.
 */
export const SubmitSiteHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Optional, 1–255 printable ASCII characters (bare or as a quoted structured-field string). Scoped to the user, or to the client IP for visitors, for 24 hours: a retry with the same key and URL gets the first answer (header `Idempotent-Replayed: true`) and is not counted; the same key with another URL is a 422.',
    }),
});
export type SubmitSiteHeaders = z.infer<typeof SubmitSiteHeaders>;

/** 201 with isNew true for a new site, 200 with isNew false for a known one. */
export const SubmitSiteResponse = z.object({ site: Site, isNew: z.boolean() });
export type SubmitSiteResponse = z.infer<typeof SubmitSiteResponse>;

export const SubmitSiteCreatedResponse = SubmitSiteResponse.extend({ isNew: z.literal(true) });
export type SubmitSiteCreatedResponse = z.infer<typeof SubmitSiteCreatedResponse>;

export const SubmitSiteExistingResponse = SubmitSiteResponse.extend({ isNew: z.literal(false) });
export type SubmitSiteExistingResponse = z.infer<typeof SubmitSiteExistingResponse>;

// ---- tags, boost, claim, click ---------------------------------------------------------

export const SiteTagsResponse = z.object({ tags: z.array(SiteTag) });
export type SiteTagsResponse = z.infer<typeof SiteTagsResponse>;

/** `credits` = boosts the caller has left today (UTC day). */
export const BoostSiteResponse = z.object({
  site: Site,
  credits: z.number().int().nonnegative(),
});
export type BoostSiteResponse = z.infer<typeof BoostSiteResponse>;

export const ClaimSiteResponse = z.object({ site: Site, verified: z.literal(true) });
export type ClaimSiteResponse = z.infer<typeof ClaimSiteResponse>;

export const RecordClickResponse = z.object({ recorded: z.literal(true) });
export type RecordClickResponse = z.infer<typeof RecordClickResponse>;

// ---- bookmarks & history ---------------------------------------------------------------

export const Bookmark = z.object({ site_id: Id, created_at: IsoDateTime });
export type Bookmark = z.infer<typeof Bookmark>;

export const CreateBookmarkBody = z.object({ site_id: Id });
export type CreateBookmarkBody = z.infer<typeof CreateBookmarkBody>;

/** 201 for a new bookmark, 200 with the existing one. */
export const CreateBookmarkResponse = z.object({ bookmark: Bookmark });
export type CreateBookmarkResponse = z.infer<typeof CreateBookmarkResponse>;

export const BookmarkListResponse = z.object({ bookmarks: z.array(Bookmark) });
export type BookmarkListResponse = z.infer<typeof BookmarkListResponse>;

/** Path parameter of DELETE /api/bookmarks/{site_id}: a bookmark is keyed by its site. */
export const BookmarkParams = z.object({ site_id: Id });
export type BookmarkParams = z.infer<typeof BookmarkParams>;

/** The caller's submissions, newest first. */
export const MySubmissionsResponse = z.object({ sites: z.array(Site) });
export type MySubmissionsResponse = z.infer<typeof MySubmissionsResponse>;

// ---- daily background ------------------------------------------------------------------

/** Path the service proxies the image bytes from; `imageUrl` points here. */
export const DAILY_BG_IMAGE_PATH = '/api/daily-bg/image';
export const DAILY_BG_CACHE_SECONDS = 6 * 60 * 60;

export const DailyBgResponse = z.object({
  /** Relative to the origin (normally DAILY_BG_IMAGE_PATH), so not a full URL. */
  imageUrl: z.string().min(1),
  videoUrl: z.string().nullable(),
  copyright: z.string(),
  title: z.string(),
});
export type DailyBgResponse = z.infer<typeof DailyBgResponse>;

// ---- moderation ------------------------------------------------------------------------

/** POST /api/moderation/sites/{id}/hide: why (kept with the site, shown to moderators only). */
export const HideSiteBody = z.object({ reason: text(500, { trim: true, min: 1 }) });
export type HideSiteBody = z.infer<typeof HideSiteBody>;

export const HideSiteResponse = z.object({
  site_id: Id,
  hidden: z.literal(true),
  hidden_at: IsoDateTime,
  hidden_reason: z.string(),
});
export type HideSiteResponse = z.infer<typeof HideSiteResponse>;

export const RestoreSiteResponse = z.object({ site_id: Id, hidden: z.literal(false) });
export type RestoreSiteResponse = z.infer<typeof RestoreSiteResponse>;
