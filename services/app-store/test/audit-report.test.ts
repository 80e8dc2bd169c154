// The automatic block writes its audit entry: the fifth distinct reporter appends exactly one
// `app.blocked` entry by `system`, in the transaction of the block (approved → blocked, the
// reasons counted, never who reported), also when ten distinct users report at once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { automaticBlockEntry } from '../src/domain/audit-entry.js';
import { appendAudit, listAudit } from '../src/store/audit-store.js';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let author: TestUser;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 100 });
  author = h.user('author');
});
afterAll(() => h.close());

const report = (u: TestUser, slug: string, body: Record<string, unknown> = {}) =>
  request(h.app).post(`/api/v1/apps/${slug}/report`).set('Cookie', u.cookie).send(body);

const entriesOf = (appId: string) => h.db.auditLog.findMany({ where: { targetId: appId } });

describe('the automatic block is audited', () => {
  it('the fifth reporter appends one app.blocked entry with before, after and the reasons', async () => {
    const app = await h.seedApp(author, { slug: 'audited-app' });
    const reporters = Array.from({ length: 5 }, (_, i) => h.user(`audit${i}`));
    const reasons = ['spam', 'spam', 'malware', 'spam', 'other'];
    for (const [i, r] of reporters.entries()) {
      expect(await entriesOf(app.id)).toHaveLength(0);
      const res = await report(r, 'audited-app', { reason: reasons[i], detail: `said ${r.id}` });
      expect(res.status).toBe(200);
    }
    const entries = await entriesOf(app.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: 'system',
      action: 'app.blocked',
      targetType: 'app',
      targetId: app.id,
      reason: '5 reports: 3 spam, 1 malware, 1 other',
      before: { status: 'approved' },
      after: { status: 'blocked' },
    });
    // Never the reporters' identities (nor their free-text details).
    const stored = JSON.stringify(entries[0], (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
    for (const r of reporters) {
      expect(stored).not.toContain(r.id);
      expect(stored).not.toContain(r.username);
      expect(stored).not.toContain(r.email);
    }
    const listed = await listAudit(h.db, { targetType: 'app', targetId: app.id });
    expect(listed.items.map((e) => e.action)).toEqual(['app.blocked']);
    // A report of the blocked app (409) writes nothing.
    expect((await report(h.user('late'), 'audited-app')).status).toBe(409);
    expect(await entriesOf(app.id)).toHaveLength(1);
  });

  it('ten distinct users reporting at once: one block, one entry (10 rounds)', async () => {
    for (let round = 0; round < 10; round += 1) {
      const slug = `audit-race-${round}`;
      const app = await h.seedApp(author, { slug });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => report(h.user('racer'), slug, { reason: 'phishing' })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
      expect(answers.filter((a) => a.body.blocked === true)).toHaveLength(1);
      const entries = await entriesOf(app.id);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        actor: 'system',
        action: 'app.blocked',
        reason: '5 reports: 5 phishing',
      });
      expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).status).toBe('blocked');
    }
  }, 120_000);

  it('an entry is only kept when its transaction commits', async () => {
    await expect(
      h.db.$transaction(async (tx) => {
        await appendAudit(tx, automaticBlockEntry('app_rolled_back', { spam: 5 }));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await entriesOf('app_rolled_back')).toHaveLength(0);
  });
});
