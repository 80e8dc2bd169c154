// Plain values of the contract, with no zod: what a browser bundle may import
// (`@svc/types/constants`) without carrying the schemas. The schemas are built from them.

/** The 12 translation / UI languages. */
export const LANGUAGE_CODES = [
  'zh-CN',
  'zh-HK',
  'zh-TW',
  'en',
  'es',
  'ar',
  'hi',
  'pt',
  'ja',
  'ko',
  'fr',
  'de',
] as const;
/** The 11 site tags, stored in Chinese and translated by the client. */
export const SITE_TAGS = [
  '工具',
  '技术',
  '设计',
  '新闻',
  '社区',
  '学习',
  '娱乐',
  '资源',
  '商业',
  '生活',
  '社交',
] as const;

/**
 * A listing's `total` (sites, apps) is an exact count up to this many matches; above, it is
 * PostgreSQL's estimate rounded to two significant digits (docs/decisions/038-growth.md).
 */
export const EXACT_TOTAL_LIMIT = 1_000;

// ---- site sharing ------------------------------------------------------------------------

/** Sites per page of GET /api/sites. */
export const SITES_PAGE_SIZE = 60;
/**
 * Rows `page` may skip: an OFFSET walks every skipped row, so numbered pages stop here and
 * `cursor` (keyset paging) reads on at any depth for the cost of a first page.
 */
export const SITES_MAX_OFFSET = 10_000;
/** Deepest numbered page (166 × 60 = 9,960 rows); past it a 400 names `cursor`. */
export const SITES_MAX_PAGE = Math.floor(SITES_MAX_OFFSET / SITES_PAGE_SIZE);

/** Name of the meta element a claimant places in the site's <head>; its content is the site id. */
export const CLAIM_META_NAME = 'svc-verify';
/** Daily boosts: visitors per IP, logged-in users per user (UTC day). */
export const BOOSTS_PER_DAY_VISITOR = 1;
export const BOOSTS_PER_DAY_USER = 3;

// ---- app store ---------------------------------------------------------------------------

export const APP_CATEGORIES = [
  'tools',
  'games',
  'social',
  'finance',
  'productivity',
  'education',
  'entertainment',
  'developer',
  'news',
  'lifestyle',
  'defi',
  'nft',
] as const;
export const APP_TYPES = ['web', 'pwa', 'dapp'] as const;
/** `iframe`: opened in a window of the user's desktop; `external`: in a new tab. */
export const APP_OPEN_MODES = ['iframe', 'external'] as const;
export const REPORT_REASONS = [
  'spam',
  'malware',
  'phishing',
  'illegal',
  'inappropriate',
  'other',
] as const;
/**
 * approved: listed; blocked: hidden by reports or a moderator; withdrawn: taken down by its
 * author, kept for them (and its slug reserved) until deleted for good.
 */
export const APP_STATUSES = ['approved', 'blocked', 'withdrawn'] as const;
/**
 * Days a withdrawn app stays in its author's list before it is deleted for good, and days
 * its slug stays reserved after the withdrawal (also when the author deletes it sooner).
 */
export const APP_WITHDRAWAL_RETENTION_DAYS = 30;
/** The 5th distinct reporter blocks the app. */
export const REPORT_BLOCK_THRESHOLD = 5;
/** Character limits of an app's fields (Unicode code points, like every limit here). */
export const APP_NAME_MAX_LENGTH = 80;
export const APP_DESCRIPTION_MAX_LENGTH = 2000;
export const APP_CHAIN_MAX_LENGTH = 64;
export const APP_URL_MAX_LENGTH = 2048;
export const SDK_VERSION_MAX_LENGTH = 64;
export const REPORT_DETAIL_MAX_LENGTH = 500;
/** Search words of the app listing and the site listing. */
export const SEARCH_MAX_LENGTH = 200;
/** 20 KB. Only length and type in the schema; removing scripts/handlers/external refs is a service rule. */
export const ICON_SVG_MAX_LENGTH = 20480;

// ---- chat --------------------------------------------------------------------------------

export const CHAT_MESSAGE_MAX_LENGTH = 200;
/** Content of every entrance message; clients render it translated. */
export const ENTRANCE_CONTENT = 'entered';

// ---- the data export (docs/decisions/034-data-export.md) --------------------------------

/** Where a user downloads everything the platform holds about them (session only). */
export const DATA_EXPORT_PATH = '/api/auth/export';
/** Exports one user may download per hour. */
export const EXPORTS_PER_HOUR = 3;

/**
 * The name chat shows for a message whose sender deleted their account
 * (docs/decisions/035-account-deletion.md); the web's account page quotes it.
 */
export const DELETED_USER_NAME = 'Deleted user';
