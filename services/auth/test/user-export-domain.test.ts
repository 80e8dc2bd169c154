// The data export put together (pure): auth's section from its rows (the moderator role by
// configuration or grant, the grants made, a waiting login code without its hash), the three
// audit logs as one timeline, every section in the documented shape.
import { describe, expect, it } from '@jest/globals';
import { EXPORT_FORMAT, ExportResponse, type ExportAuditEntry } from '@svc/types';
import { assembleExport, mergeModeration, toExportUser } from '../src/domain/user-export.js';
import type { UserExportRows } from '../src/store/store.js';

const t = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute));

const rows = (over: Partial<UserExportRows['user']> = {}): UserExportRows => ({
  user: {
    id: 'u1',
    email: 'ann@example.com',
    username: 'ann',
    createdAt: t(0),
    updatedAt: t(1),
    moderatorGrant: null,
    ...over,
  },
  grantsGiven: [{ userId: 'u2', createdAt: t(2) }],
  pendingCode: { createdAt: t(3), expiresAt: t(13), attempts: 1 },
});

const entry = (service: ExportAuditEntry['service'], id: string, minute: number): ExportAuditEntry => ({
  service,
  id,
  at: t(minute).toISOString(),
  action: 'x',
  target_type: 't',
  target_id: 'i',
  reason: '',
  before: null,
  after: null,
});

describe('toExportUser', () => {
  it('shows the account, the grants made and the waiting code (never its hash)', () => {
    const user = toExportUser(rows(), false);
    expect(user).toEqual({
      id: 'u1',
      email: 'ann@example.com',
      username: 'ann',
      created_at: t(0).toISOString(),
      updated_at: t(1).toISOString(),
      moderator: null,
      moderator_grants_given: [{ user_id: 'u2', granted_at: t(2).toISOString() }],
      pending_login_code: { created_at: t(3).toISOString(), expires_at: t(13).toISOString(), attempts: 1 },
    });
    expect(JSON.stringify(user)).not.toMatch(/hash/i);
  });

  it('names where the moderator role comes from: the configuration first, else the grant', () => {
    const granted = rows({ moderatorGrant: { grantedBy: 'u9', createdAt: t(5) } });
    expect(toExportUser(granted, false).moderator).toEqual({
      source: 'grant',
      granted_by: 'u9',
      granted_at: t(5).toISOString(),
    });
    expect(toExportUser(granted, true).moderator).toEqual({
      source: 'configuration',
      granted_by: null,
      granted_at: null,
    });
    expect(toExportUser({ ...rows(), pendingCode: null }, false).pending_login_code).toBeNull();
  });
});

describe('mergeModeration', () => {
  it('makes one timeline of each kind: oldest first, then by service, then by id as a number', () => {
    const merged = mergeModeration([
      { by_you: [entry('app-store', '10', 2), entry('app-store', '9', 2)], about_you: [] },
      { by_you: [entry('sites', '1', 1)], about_you: [{ ...entry('sites', '2', 3), actor: 'system' }] },
      { by_you: [entry('chat', '5', 2)], about_you: [{ ...entry('chat', '1', 0), actor: 'moderator' }] },
    ]);
    expect(merged.by_you.map((e) => `${e.service}#${e.id}`)).toEqual([
      'sites#1',
      'app-store#9',
      'app-store#10',
      'chat#5',
    ]);
    expect(merged.about_you.map((e) => `${e.service}#${e.id}`)).toEqual(['chat#1', 'sites#2']);
  });
});

describe('assembleExport', () => {
  it('puts each part in its section, in the documented shape', () => {
    const empty = { by_you: [], about_you: [] };
    const exported = assembleExport(
      toExportUser(rows(), false),
      {
        'app-store': {
          data: { developer: null, apps: [], api_keys: [], installs: [], reports: [], appeals: [] },
          moderation: { by_you: [entry('app-store', '1', 4)], about_you: [] },
        },
        sites: {
          data: { submissions: [], claims: [], bookmarks: [], boosts: [], idempotency_keys: [{ key: 'k', created_at: t(1).toISOString() }] },
          moderation: empty,
        },
        chat: { data: { messages: [], likes: [], mute: null }, moderation: empty },
      },
      t(30),
    );
    expect(ExportResponse.parse(exported)).toEqual(exported);
    expect(exported).toMatchObject({ format: EXPORT_FORMAT, exported_at: t(30).toISOString() });
    expect(exported.sites.idempotency_keys).toHaveLength(1);
    expect(exported.chat).toEqual({ messages: [], likes: [], mute: null });
    expect(exported.moderation.by_you.map((e) => e.service)).toEqual(['app-store']);
  });
});
