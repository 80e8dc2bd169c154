// app-store's part of a user's data export (docs/decisions/034-data-export.md), from the rows
// its store read: pure, so the shape and what is left out are tested without a database.
import type { AppsExportPart, ExportAppRef } from '@svc/types';
import { exportModeration } from '@svc/service-kit';
import type { AppsUserRows } from '../store/user-export-store.js';
import { toMyApp } from './app-record.js';

const ref = (a: { id: string; slug: string; name: string }): ExportAppRef => ({
  id: a.id,
  slug: a.slug,
  name: a.name,
});
const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toAppsExportPart(userId: string, rows: AppsUserRows): AppsExportPart {
  return {
    data: {
      developer: rows.developer && {
        email: rows.developer.email,
        username: rows.developer.username,
        updated_at: rows.developer.updatedAt.toISOString(),
      },
      apps: rows.apps.map((a) => ({
        ...toMyApp(a, rows.blocks.get(a.id)),
        created_at: a.createdAt.toISOString(),
        updated_at: a.updatedAt.toISOString(),
      })),
      api_keys: rows.apiKeys.map((k) => ({
        id: k.id,
        app: ref(k.app),
        prefix: k.prefix,
        created_at: k.createdAt.toISOString(),
        last_used_at: iso(k.lastUsedAt),
        revoked_at: iso(k.revokedAt),
      })),
      installs: rows.installs.map((i) => ({
        app: ref(i.app),
        installed_at: i.createdAt.toISOString(),
        removed_at: iso(i.removedAt),
      })),
      reports: rows.reports.map((r) => ({
        id: r.id,
        app: ref(r.app),
        reason: r.reason,
        detail: r.detail,
        created_at: r.createdAt.toISOString(),
        resolved_at: iso(r.resolvedAt),
      })),
      appeals: rows.appeals.map((p) => ({
        id: p.id,
        app: ref(p.app),
        text: p.text,
        created_at: p.createdAt.toISOString(),
        closed_at: iso(p.closedAt),
      })),
    },
    moderation: exportModeration('app-store', userId, rows.audit),
  };
}
