// Where each read of app-store goes: a read replica or the primary
// (docs/decisions/037-read-replicas.md; the kit's read-router.ts). The one place that says it.
// - 'replica': a usable replica; for a caller who wrote a moment ago, one that has replayed
//   that write (else the primary). The public routes know no caller (they read no session),
//   so there it is any usable replica.
// - 'cache': loads of the listing's page cache and of the totals kept in Redis, which this
//   process clears after its own writes: a replica that has replayed this process's last write.
// Not listed, so on the primary: every write and the reads it depends on (the app looked up
// before a PATCH, a report, a withdrawal), the API-key look-up of every key-authenticated
// request (a revoked key stops at once), the key lists, the moderation tools and the audit
// log, the data export, the withdrawn-app purge. GET /api/v1/categories is a constant.
import {
  createReadRouter,
  type Metrics,
  type ReadRouter,
  type ReadRouting,
} from '@svc/service-kit';
import type { AuthorStore } from './author-store.js';
import type { ListingReader } from './listing-reader.js';
import type { AppStore } from './store.js';

export const APP_STORE_READS = {
  /** GET /api/v1/apps (listing and search): pages and totals, behind the caches. */
  listing: 'cache',
  /** GET /api/v1/apps/{slug}: a miss is asked of the primary (an app submitted a moment ago). */
  appDetail: 'replica',
  /** GET /api/v1/apps/{slug}/icon: a miss is asked of the primary too. */
  appIcon: 'replica',
  /** GET /api/v1/me/apps: the caller's apps and their blocks, right after a change. */
  myApps: 'replica',
  /** GET /api/v1/me/apps/{slug}/audit: what happened to the caller's app. */
  myAppAudit: 'replica',
  /** GET /api/v1/me/installed: right after an install or an uninstall. */
  installed: 'replica',
} as const satisfies Record<string, ReadRouting>;

export type AppStoreReadName = keyof typeof APP_STORE_READS;

/** What a read uses, on the primary or on one replica. */
export interface AppStoreReadClient {
  store: AppStore;
  authors: AuthorStore;
  listingReader: ListingReader;
}

export type AppStoreReads = ReadRouter<AppStoreReadClient, AppStoreReadName>;

/** Every read on the primary (no replica configured; tests). */
export function primaryReads(
  primary: AppStoreReadClient,
  registry?: Metrics['registry'],
): AppStoreReads {
  return createReadRouter({ service: 'app-store', routing: APP_STORE_READS, primary, registry });
}
