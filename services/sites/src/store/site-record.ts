// A stored site (the Prisma model) as the public Site shape of @svc/types.
import type { Site } from '@svc/types';
import type { Site as SiteRow } from '../generated/prisma/client.js';

export type { SiteRow };

/**
 * The sites columns under their Prisma field names, so raw rows (Prisma's `$queryRaw` or a
 * plain pg pool, table aliased `s`) have the model's shape. The `timestamp(3)` columns hold
 * UTC (what Prisma writes): read as timestamptz, so either driver makes the right Date.
 */
export const SITE_ROW_COLUMNS = `
  s.id, s.url, s.title, s.description, s.favicon_url AS "faviconUrl", s.og_image_url AS "ogImageUrl",
  s.domain, s.tags, s.submit_count AS "submitCount", s.click_count AS "clickCount",
  s.boost_count AS "boostCount", s.hot_score AS "hotScore", s.site_type::text AS "siteType",
  s.social_platform::text AS "socialPlatform", s.social_username AS "socialUsername",
  s.is_claimed AS "isClaimed", s.claimed_at AT TIME ZONE 'UTC' AS "claimedAt",
  s.is_promoted AS "isPromoted", s.owner_id AS "ownerId", s.submitted_by AS "submittedBy",
  s.first_submitted_at AT TIME ZONE 'UTC' AS "firstSubmittedAt",
  s.last_activity_at AT TIME ZONE 'UTC' AS "lastActivityAt",
  s.scrape_status::text AS "scrapeStatus"`;

export function toSite(row: SiteRow): Site {
  return {
    id: row.id,
    url: row.url,
    title: row.title,
    description: row.description,
    favicon_url: row.faviconUrl,
    og_image_url: row.ogImageUrl,
    domain: row.domain,
    tags: row.tags as Site['tags'],
    submit_count: row.submitCount,
    click_count: row.clickCount,
    hot_score: row.hotScore,
    site_type: row.siteType,
    social_platform: row.socialPlatform,
    social_username: row.socialUsername,
    boost_count: row.boostCount,
    is_claimed: row.isClaimed,
    is_promoted: row.isPromoted,
    first_submitted_at: row.firstSubmittedAt.toISOString(),
    last_activity_at: row.lastActivityAt.toISOString(),
  };
}
