// Rows of the `apps` table → the API's shapes (snake_case, ISO timestamps).
import type { App, AppDetail, AppListItem, MyApp } from '@svc/types';
import type { App as AppRow } from '../generated/prisma/client.js';

export function toListItem(row: AppRow): AppListItem {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    url: row.url,
    category: row.category,
    app_type: row.appType,
    open_mode: row.openMode,
    status: row.status,
    downloads: row.downloads,
    author_name: row.authorName,
    icon_gradient_from: row.iconGradientFrom,
    icon_gradient_to: row.iconGradientTo,
    has_icon: row.iconSvg !== null,
  };
}

export function toApp(row: AppRow): App {
  const { has_icon: _hasIcon, ...item } = toListItem(row);
  return {
    ...item,
    chain: row.chain,
    icon_svg: row.iconSvg,
    tech_tags: row.techTags,
    svc_sdk_version: row.svcSdkVersion,
  };
}

export function toDetail(row: AppRow): AppDetail {
  return {
    ...toApp(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    report_count: row.reportCount,
  };
}

/** The author's view of a block (reporters never named; see store/author-store.ts). */
export interface BlockView {
  blockedAt: Date;
  by: 'reports' | 'moderator';
  reasonSummary: string;
  appeal: { text: string; createdAt: Date } | null;
}

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * One of the caller's own apps (GET /api/v1/me/apps), with its block when blocked and when
 * it goes for good when withdrawn.
 */
export function toMyApp(row: AppRow, block?: BlockView): MyApp {
  const withdrawn = row.status === 'withdrawn';
  return {
    ...toApp(row),
    has_icon: row.iconSvg !== null,
    withdrawn_at: withdrawn ? isoOrNull(row.withdrawnAt) : null,
    purge_at: withdrawn ? isoOrNull(row.purgeAt) : null,
    block:
      row.status === 'blocked' && block
        ? {
            blocked_at: block.blockedAt.toISOString(),
            by: block.by,
            reason_summary: block.reasonSummary,
            appeal: block.appeal
              ? { text: block.appeal.text, created_at: block.appeal.createdAt.toISOString() }
              : null,
            can_appeal: block.appeal === null,
          }
        : null,
  };
}
