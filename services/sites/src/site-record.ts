// A stored site (the Prisma model) as the public Site shape of @svc/types.
import type { Site } from '@svc/types';
import type { Site as SiteRow } from './generated/prisma/client.js';

export type { SiteRow };

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
