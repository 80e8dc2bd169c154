// sites' part of the data export from its rows (pure): the documented shape, `first` for the
// first submitter only, the boost's UTC day, audit actors as roles.
import { describe, expect, it } from '@jest/globals';
import { SitesExportPart } from '@svc/types';
import { toSitesExportPart } from '../src/domain/user-export.js';
import type { SitesUserRows } from '../src/store/user-export-store.js';

const at = new Date('2026-11-21T23:30:00.000Z');
const site = (id: string, submittedBy: string | null) => ({ id, url: `https://${id}.test/`, title: id, submittedBy });

const rows: SitesUserRows = {
  submissions: [
    { createdAt: at, site: site('s1', 'u1') },
    { createdAt: at, site: site('s2', 'someone-else') },
  ],
  claims: [{ id: 's1', url: 'https://s1.test/', title: 's1', claimedAt: null }],
  bookmarks: [{ createdAt: at, site: site('s3', null) }],
  boosts: [{ id: 'b1', day: new Date('2026-11-21T00:00:00.000Z'), createdAt: at, site: site('s3', null) }],
  idempotencyKeys: [{ key: 'k', createdAt: at }],
  audit: [
    { id: '1', at, actor: 'system', action: 'site.hidden', targetType: 'site', targetId: 's1', reason: 'r', before: null, after: null },
    { id: '2', at, actor: 'mod-9', action: 'site.restored', targetType: 'site', targetId: 's1', reason: '', before: null, after: null },
  ],
};

describe('toSitesExportPart', () => {
  it('maps every row in the documented shape', () => {
    const part = toSitesExportPart('u1', rows);
    expect(SitesExportPart.parse(part)).toEqual(part);
    expect(part.data.submissions.map((s) => [s.site.id, s.first, s.submitted_at])).toEqual([
      ['s1', true, at.toISOString()],
      ['s2', false, at.toISOString()],
    ]);
    expect(part.data.submissions[0]!.site).toEqual({ id: 's1', url: 'https://s1.test/', title: 's1' });
    expect(part.data.claims).toEqual([{ site: { id: 's1', url: 'https://s1.test/', title: 's1' }, claimed_at: null }]);
    expect(part.data.boosts[0]).toMatchObject({ id: 'b1', day: '2026-11-21', created_at: at.toISOString() });
    expect(part.data.idempotency_keys).toEqual([{ key: 'k', created_at: at.toISOString() }]);
  });

  it("shows other actors as roles, never a moderator's id", () => {
    const part = toSitesExportPart('u1', rows);
    expect(part.moderation.about_you.map((e) => e.actor)).toEqual(['system', 'moderator']);
    expect(JSON.stringify(part)).not.toContain('mod-9');
    expect(JSON.stringify(part)).not.toContain('submittedBy');
  });
});
