// app-store's part of the data export from its rows (pure): every app field with the block,
// key metadata only, timestamps as ISO strings, audit actors as roles.
import { describe, expect, it } from '@jest/globals';
import { AppsExportPart } from '@svc/types';
import { toAppsExportPart } from '../src/domain/user-export.js';
import type { AppsUserRows } from '../src/store/user-export-store.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const appRef = { id: 'a1', slug: 'my-app', name: 'My App' };
const appRow = {
  id: 'a1',
  slug: 'my-app',
  name: 'My App',
  description: '',
  url: 'https://my.example',
  category: 'tools',
  appType: 'web',
  openMode: 'iframe',
  status: 'blocked',
  downloads: 3,
  authorId: 'u1',
  authorName: 'ann',
  chain: null,
  iconGradientFrom: null,
  iconGradientTo: null,
  iconSvg: null,
  techTags: ['ts'],
  svcSdkVersion: null,
  reportCount: 5,
  blockAuditId: 9n,
  createdAt: at,
  updatedAt: at,
} as AppsUserRows['apps'][number];

const rows: AppsUserRows = {
  developer: { email: 'ann@example.com', username: 'ann', updatedAt: at },
  apps: [appRow],
  blocks: new Map([
    ['a1', { blockedAt: at, by: 'reports' as const, reasonSummary: '5 reports: 5 spam', appeal: null }],
  ]),
  apiKeys: [{ id: 'k1', prefix: 'svc_live_ab', createdAt: at, lastUsedAt: null, revokedAt: at, app: appRef }],
  installs: [{ createdAt: at, removedAt: null, app: appRef }],
  reports: [{ id: 'r1', reason: 'spam', detail: null, createdAt: at, resolvedAt: null, app: appRef }],
  appeals: [{ id: 'p1', text: 'please', createdAt: at, closedAt: null, app: appRef }],
  audit: [
    { id: '9', at, actor: 'system', action: 'app.blocked', targetType: 'app', targetId: 'a1', reason: '5 reports: 5 spam', before: null, after: null },
    { id: '10', at, actor: 'u1', action: 'app.appealed', targetType: 'app', targetId: 'a1', reason: 'please', before: null, after: null },
  ],
};

describe('toAppsExportPart', () => {
  it('maps every row in the documented shape', () => {
    const part = toAppsExportPart('u1', rows);
    expect(AppsExportPart.parse(part)).toEqual(part);
    expect(part.data.apps[0]).toMatchObject({
      slug: 'my-app',
      status: 'blocked',
      tech_tags: ['ts'],
      created_at: at.toISOString(),
      block: { by: 'reports', reason_summary: '5 reports: 5 spam', can_appeal: true, blocked_at: at.toISOString() },
    });
    expect(part.data.api_keys).toEqual([
      { id: 'k1', app: appRef, prefix: 'svc_live_ab', created_at: at.toISOString(), last_used_at: null, revoked_at: at.toISOString() },
    ]);
    expect(part.data.developer).toEqual({ email: 'ann@example.com', username: 'ann', updated_at: at.toISOString() });
    expect(part.moderation.by_you.map((e) => e.action)).toEqual(['app.appealed']);
    expect(part.moderation.about_you).toEqual([expect.objectContaining({ action: 'app.blocked', actor: 'system' })]);
  });

  it('leaves the developer null for a user who never acted as one', () => {
    expect(toAppsExportPart('u1', { ...rows, developer: null }).data.developer).toBeNull();
  });
});
