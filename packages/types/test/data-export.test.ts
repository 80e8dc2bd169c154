import { describe, expect, it } from '@jest/globals';
import {
  AppsExportPart,
  EXPORT_FORMAT,
  ExportResponse,
  exportFileName,
} from '../src/data-export.js';
import { ENDPOINTS } from '../src/endpoints.js';
import { INTERNAL_USER_EXPORT_PATH, internalUserExportPath } from '../src/internal.js';
import { T } from './fixtures.js';

const site = { id: 's1', url: 'https://example.com/', title: 'Example' };
const app = { id: 'a1', slug: 'my-app', name: 'My App' };

const sample = {
  format: EXPORT_FORMAT,
  exported_at: T,
  user: {
    id: 'u1',
    email: 'ann@example.com',
    username: 'ann',
    created_at: T,
    updated_at: T,
    moderator: null,
    moderator_grants_given: [],
    pending_login_code: null,
  },
  sites: {
    submissions: [{ site, submitted_at: T, first: true }],
    claims: [{ site, claimed_at: T }],
    bookmarks: [{ site, created_at: T }],
    boosts: [{ id: 'b1', site, day: '2026-11-21', created_at: T }],
    idempotency_keys: [{ key: 'k-1', created_at: T }],
  },
  chat: {
    messages: [
      {
        id: 'm1',
        type: 'chat',
        content: 'hello',
        sender_name: 'ann',
        sender_location: 'JP|Tokyo',
        like_count: 1,
        created_at: T,
        deleted_at: null,
      },
    ],
    likes: [{ message_id: 'm2', created_at: T }],
    mute: null,
  },
  apps: {
    developer: { email: 'ann@example.com', username: 'ann', updated_at: T },
    apps: [],
    api_keys: [{ id: 'k1', prefix: 'svc_live_ab', created_at: T, last_used_at: null, revoked_at: null, app }],
    installs: [{ app, installed_at: T, removed_at: null }],
    reports: [{ id: 'r1', app, reason: 'spam', detail: null, created_at: T, resolved_at: null }],
    appeals: [{ id: 'p1', app, text: 'please', created_at: T, closed_at: null }],
  },
  moderation: {
    by_you: [],
    about_you: [
      {
        service: 'chat',
        id: '1',
        at: T,
        actor: 'moderator',
        action: 'sender.muted',
        target_type: 'sender',
        target_id: 'user:u1',
        reason: '',
        before: { muted_until: null },
        after: { minutes: 5 },
      },
    ],
  },
};

describe('the data export', () => {
  it('parses a whole export and refuses a section missing', () => {
    expect(ExportResponse.parse(sample)).toEqual(sample);
    const { chat: _chat, ...withoutChat } = sample;
    expect(ExportResponse.safeParse(withoutChat).success).toBe(false);
    expect(ExportResponse.safeParse({ ...sample, format: 'svc-export/0' }).success).toBe(false);
  });

  it('never names a moderator: about_you actors are roles only', () => {
    const entry = { ...sample.moderation.about_you[0]!, actor: 'u-moderator-id' };
    const bad = { ...sample, moderation: { by_you: [], about_you: [entry] } };
    expect(ExportResponse.safeParse(bad).success).toBe(false);
  });

  it('API keys carry metadata only: a key or hash field would be dropped, not kept', () => {
    const withSecret = {
      data: { ...sample.apps, api_keys: [{ ...sample.apps.api_keys[0]!, key_hash: 'abc' }] },
      moderation: { by_you: [], about_you: [] },
    };
    const parsed = AppsExportPart.parse(withSecret);
    expect(parsed.data.api_keys[0]).not.toHaveProperty('key_hash');
  });

  it('names the download by the UTC day', () => {
    expect(exportFileName(new Date('2026-11-21T23:59:59.999Z'))).toBe('svc-export-2026-11-21.json');
  });

  it('fills the internal path with the encoded user id', () => {
    expect(INTERNAL_USER_EXPORT_PATH).toBe('/internal/users/{id}/export');
    expect(internalUserExportPath('a/b c')).toBe('/internal/users/a%2Fb%20c/export');
  });

  it('is in the catalogue as a session-only download, limited per user', () => {
    const e = ENDPOINTS.find((x) => x.operationId === 'exportUserData');
    expect(e).toMatchObject({ method: 'GET', path: '/api/auth/export', service: 'auth', auth: 'session' });
    expect(e?.rateLimit).toEqual({ limit: 3, window: 'hour', key: 'user' });
    expect(e?.responses[200]).toMatchObject({ attachment: true, schema: ExportResponse });
    expect(Object.keys(e?.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '408', '429', '431', '500', '503'].sort(),
    );
  });
});
