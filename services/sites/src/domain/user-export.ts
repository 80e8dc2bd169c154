// sites' part of a user's data export (docs/decisions/034-data-export.md), from the rows its
// store read: pure, so the shape and what is left out are tested without a database.
import type { ExportSiteRef, SitesExportPart } from '@svc/types';
import { exportModeration } from '@svc/service-kit';
import type { SitesUserRows } from '../store/user-export-store.js';

const ref = (s: { id: string; url: string; title: string }): ExportSiteRef => ({
  id: s.id,
  url: s.url,
  title: s.title,
});

export function toSitesExportPart(userId: string, rows: SitesUserRows): SitesExportPart {
  return {
    data: {
      submissions: rows.submissions.map((s) => ({
        site: ref(s.site),
        submitted_at: s.createdAt.toISOString(),
        first: s.site.submittedBy === userId,
      })),
      claims: rows.claims.map((c) => ({
        site: ref(c),
        claimed_at: c.claimedAt?.toISOString() ?? null,
      })),
      bookmarks: rows.bookmarks.map((b) => ({
        site: ref(b.site),
        created_at: b.createdAt.toISOString(),
      })),
      boosts: rows.boosts.map((b) => ({
        id: b.id,
        site: ref(b.site),
        // A DATE column: midnight UTC of the day the boost counted for.
        day: b.day.toISOString().slice(0, 10),
        created_at: b.createdAt.toISOString(),
      })),
      idempotency_keys: rows.idempotencyKeys.map((k) => ({
        key: k.key,
        created_at: k.createdAt.toISOString(),
      })),
    },
    moderation: exportModeration('sites', userId, rows.audit),
  };
}
