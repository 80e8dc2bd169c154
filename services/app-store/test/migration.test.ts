// The init migration on a fresh schema: rows go in through the generated client, the
// unique constraints hold, and the indexes the listings and searches need exist.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createPgAdapter } from '@svc/service-kit';
import { createTestDatabase, type TestDatabase } from '@svc/service-kit/testing';
import { Prisma, PrismaClient } from '../src/generated/prisma/client.js';

const migrations = new URL('../prisma/migrations', import.meta.url).pathname;

let testDb: TestDatabase;
let db: PrismaClient;
let schema: string;

beforeAll(async () => {
  testDb = await createTestDatabase(migrations);
  schema = testDb.target.schema;
  db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 2 }) });
});

afterAll(async () => {
  await db?.$disconnect();
  await testDb?.drop();
});

const appData = (
  slug: string,
  extra: Partial<Prisma.AppCreateInput> = {},
): Prisma.AppCreateInput => ({
  id: `id-${slug}`,
  slug,
  name: `App ${slug}`,
  url: `https://${slug}.example`,
  authorId: 'user-1',
  authorName: 'alice',
  ...extra,
});

async function expectUniqueViolation(op: Promise<unknown>): Promise<void> {
  await expect(op).rejects.toMatchObject({ code: 'P2002' });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('app_store schema', () => {
  it('stores an app with the documented defaults', async () => {
    const app = await db.app.create({ data: appData('first-app') });
    expect(app).toMatchObject({
      description: '',
      category: 'tools',
      appType: 'web',
      openMode: 'iframe',
      status: 'approved',
      downloads: 0,
      reportCount: 0,
      techTags: [],
      chain: null,
      iconSvg: null,
      svcSdkVersion: null,
    });
    expect(app.createdAt).toBeInstanceOf(Date);
    const blocked = await db.app.update({
      where: { id: app.id },
      data: {
        status: 'blocked',
        category: 'defi',
        appType: 'dapp',
        openMode: 'external',
        chain: 'ethereum',
      },
    });
    expect(blocked.status).toBe('blocked');
    expect(await db.app.count({ where: { status: 'approved', category: 'defi' } })).toBe(0);
  });

  it('refuses a duplicate slug', async () => {
    await db.app.create({ data: appData('dup-slug') });
    await expectUniqueViolation(db.app.create({ data: appData('dup-slug', { id: 'other-id' }) }));
  });

  it('refuses a second report of an app by the same user', async () => {
    await db.app.create({ data: appData('reported') });
    await db.appReport.create({ data: { appId: 'id-reported', userId: 'u1', reason: 'spam' } });
    await db.appReport.create({
      data: { appId: 'id-reported', userId: 'u2', detail: 'looks fake' },
    });
    await expectUniqueViolation(
      db.appReport.create({ data: { appId: 'id-reported', userId: 'u1' } }),
    );
    expect(await db.appReport.count({ where: { appId: 'id-reported' } })).toBe(2);
    // Once the first report is resolved (a moderator's restore or dismissal), u1 may report again.
    await db.appReport.updateMany({
      where: { appId: 'id-reported', userId: 'u1' },
      data: { resolvedAt: new Date() },
    });
    await db.appReport.create({ data: { appId: 'id-reported', userId: 'u1', reason: 'malware' } });
    await expectUniqueViolation(
      db.appReport.create({ data: { appId: 'id-reported', userId: 'u1' } }),
    );
    expect(await db.appReport.count({ where: { appId: 'id-reported' } })).toBe(3);
  });

  it('refuses a duplicate key hash and a duplicate install', async () => {
    await db.app.create({ data: appData('keyed') });
    const keyHash = sha256('svc_live_secret');
    await db.apiKey.create({
      data: { id: 'k1', appId: 'id-keyed', authorId: 'user-1', keyHash, prefix: 'svc_live_sec' },
    });
    await expectUniqueViolation(
      db.apiKey.create({
        data: { id: 'k2', appId: 'id-keyed', authorId: 'user-1', keyHash, prefix: 'svc_live_sec' },
      }),
    );
    await db.install.create({ data: { userId: 'u1', appId: 'id-keyed' } });
    await expectUniqueViolation(db.install.create({ data: { userId: 'u1', appId: 'id-keyed' } }));
  });

  it('refuses values outside the CHECK constraints', async () => {
    await expect(
      db.app.create({ data: appData('Bad_Slug', { id: 'bad-slug' }) }),
    ).rejects.toThrow();
    await expect(db.app.create({ data: appData('negative', { downloads: -1 }) })).rejects.toThrow();
    await expect(
      db.app.create({
        data: appData('many-tags', { techTags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
      }),
    ).rejects.toThrow();
    await expect(
      db.apiKey.create({
        data: { id: 'k3', appId: 'id-keyed', authorId: 'user-1', keyHash: 'plain', prefix: 'x' },
      }),
    ).rejects.toThrow();
  });

  it('maintains the search document from name, description and tech_tags (CJK included)', async () => {
    await db.app.create({
      data: appData('cjk-app', {
        name: '在线工具箱',
        description: 'A calculator for everyone',
        techTags: ['React', 'Web3'],
      }),
    });
    await db.app.create({
      data: appData('plain-app', { name: 'Notes', description: 'Take notes' }),
    });
    const search = async (q: string) =>
      (
        await db.$queryRawUnsafe<Array<{ slug: string }>>(
          `SELECT slug FROM "${schema}".apps WHERE search_document @@ "${schema}".svc_search_query($1) ORDER BY slug`,
          q,
        )
      ).map((r) => r.slug);
    expect(await search('工具')).toEqual(['cjk-app']);
    expect(await search('在线')).toEqual(['cjk-app']);
    expect(await search('calc')).toEqual(['cjk-app']);
    expect(await search('react')).toEqual(['cjk-app']);
    expect(await search('NOTES')).toEqual(['plain-app']);
    expect(await search('工线')).toEqual([]);
    // Updating a field updates the document.
    await db.app.update({ where: { slug: 'plain-app' }, data: { techTags: ['工具'] } });
    expect(await search('工具')).toEqual(['cjk-app', 'plain-app']);
  });

  it('has the indexes the listing, search and lookups need', async () => {
    const rows = await db.$queryRaw<Array<{ indexname: string; indexdef: string }>>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${schema}`;
    const defs = new Map(rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.get('apps_slug_key')).toMatch(/UNIQUE INDEX .* \(slug\)/);
    expect(defs.get('apps_listing_idx')).toMatch(/\(status, downloads DESC, created_at DESC, id\)/);
    expect(defs.get('apps_listing_category_idx')).toMatch(
      /\(status, category, downloads DESC, created_at DESC, id\)/,
    );
    expect(defs.get('apps_listing_app_type_idx')).toMatch(
      /\(status, app_type, downloads DESC, created_at DESC, id\)/,
    );
    expect(defs.get('apps_author_idx')).toMatch(/\(author_id, created_at DESC\)/);
    expect(defs.get('apps_search_idx')).toMatch(/USING gin \(search_document\)/);
    expect(defs.get('api_keys_key_hash_key')).toMatch(/UNIQUE INDEX .* \(key_hash\)/);
    expect(defs.get('app_reports_pkey')).toMatch(/\(id\)/);
    // One OPEN report per user per app (resolved ones leave room for a new one).
    expect(defs.get('app_reports_open_user_key')).toMatch(
      /UNIQUE INDEX .* \(app_id, user_id\) WHERE \(resolved_at IS NULL\)/,
    );
    expect(defs.get('app_reports_app_created_idx')).toMatch(/\(app_id, created_at DESC\)/);
    expect(defs.get('installs_pkey')).toMatch(/\(user_id, app_id\)/);
    expect(defs.get('installs_user_idx')).toMatch(/\(user_id, created_at DESC\)/);
  });

  it('keeps uninstalled rows and developer snapshots (second migration)', async () => {
    await db.app.create({ data: appData('installed-app') });
    await db.install.create({ data: { userId: 'u9', appId: 'id-installed-app' } });
    const removed = await db.install.update({
      where: { userId_appId: { userId: 'u9', appId: 'id-installed-app' } },
      data: { removedAt: new Date() },
    });
    expect(removed.removedAt).toBeInstanceOf(Date);
    await db.developer.create({ data: { userId: 'dev-1', email: 'd@example.com', username: 'd' } });
    await expect(
      db.developer.create({ data: { userId: 'dev-1', email: 'e@example.com', username: 'e' } }),
    ).rejects.toMatchObject({ code: 'P2002' });
  });

  it('withdrawn apps: the status, their times, the purge index and slug reservations', async () => {
    const app = await db.app.create({
      data: appData('withdrawn-app', {
        status: 'withdrawn',
        withdrawnAt: new Date('2026-11-24T10:00:00.000Z'),
        purgeAt: new Date('2026-12-24T10:00:00.000Z'),
      }),
    });
    expect(app).toMatchObject({ status: 'withdrawn', purgeAt: new Date('2026-12-24T10:00:00.000Z') });
    const rows = await db.$queryRaw<Array<{ indexname: string; indexdef: string }>>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${schema}`;
    const defs = new Map(rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.get('apps_purge_idx')).toMatch(/\(purge_at\) WHERE \(purge_at IS NOT NULL\)/);
    expect(defs.get('slug_reservations_pkey')).toMatch(/UNIQUE INDEX .* \(slug\)/);
    expect(defs.get('slug_reservations_until_idx')).toMatch(/\(reserved_until\)/);
    const until = new Date('2026-12-24T10:00:00.000Z');
    await db.slugReservation.create({ data: { slug: 'withdrawn-app', reservedUntil: until } });
    await expectUniqueViolation(
      db.slugReservation.create({ data: { slug: 'withdrawn-app', reservedUntil: until } }),
    );
    // A reservation outlives the app it came from: no foreign key.
    await db.app.delete({ where: { id: app.id } });
    expect(await db.slugReservation.count({ where: { slug: 'withdrawn-app' } })).toBe(1);
  });
});
