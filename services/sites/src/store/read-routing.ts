// Where each read of the sites API goes: a read replica or the primary
// (docs/decisions/037-read-replicas.md; the kit's read-router.ts). The one place that says it.
// - 'replica': a usable replica; for a caller who wrote a moment ago, one that has replayed
//   that write (else the primary).
// - 'cache': loads of this process's caches, which it clears after its own writes: a replica
//   that has replayed this process's last write.
// Not listed, so on the primary: every write and the reads it depends on (the boost's
// daily count under its lock, the claim's check, the submission's look-up), the moderation
// tools and the audit log, the data export and the account deletion, the scrape re-queue
// sweep. GET /api/sites/tags is a constant and GET /api/daily-bg comes from Redis: no read.
import {
  createReadRouter,
  type ReadRouter,
  type Metrics,
  type ReadRouting,
} from '@svc/service-kit';
import type { SiteListReader } from './site-list-reader.js';
import type { SiteStore } from './site-store.js';
import type { SitemapReader } from './sitemap-reader.js';

export const SITES_READS = {
  /** GET /api/sites: pages and match counts, behind the process's caches. */
  listSites: 'cache',
  /** GET /sitemap.xml and /sitemap-<n>.xml, behind their process cache. */
  sitemap: 'cache',
  /** GET /api/sites/{id}: a miss is asked of the primary (a site submitted a moment ago). */
  siteDetail: 'replica',
  /** GET /api/sites/my-submissions: the caller's own submissions, right after one. */
  mySubmissions: 'replica',
  /** GET /api/bookmarks: the caller's own bookmarks, right after a change. */
  bookmarks: 'replica',
} as const satisfies Record<string, ReadRouting>;

export type SitesReadName = keyof typeof SITES_READS;

/** What a read uses, on the primary or on one replica. */
export interface SitesReadClient {
  store: SiteStore;
  listReader: SiteListReader;
  sitemapReader: SitemapReader;
}

export type SitesReads = ReadRouter<SitesReadClient, SitesReadName>;

/** Every read on the primary (no replica configured; tests). */
export function primaryReads(primary: SitesReadClient, registry?: Metrics['registry']): SitesReads {
  return createReadRouter({ service: 'sites', routing: SITES_READS, primary, registry });
}
