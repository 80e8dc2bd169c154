// The init migration on a fresh schema: rows go in through the generated client, the
// generated columns (hot_score, search_document) follow the data, the unique and CHECK
// constraints hold, and the indexes the listings and searches need exist.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkPublicUrl } from '@svc/safe-fetch';
import { createPgAdapter, createPgPool } from '@svc/service-kit';
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

const siteData = (
  id: string,
  extra: Partial<Prisma.SiteCreateInput> = {},
): Prisma.SiteCreateInput => ({
  id,
  url: `https://${id}.example/`,
  title: `${id}.example`,
  domain: `${id}.example`,
  ...extra,
});

const expectUniqueViolation = (op: Promise<unknown>) =>
  expect(op).rejects.toMatchObject({ code: 'P2002' });

describe('sites schema', () => {
  it('stores a new site with the documented defaults', async () => {
    const site = await db.site.create({ data: siteData('first') });
    expect(site).toMatchObject({
      description: '',
      tags: [],
      submitCount: 1,
      clickCount: 0,
      boostCount: 0,
      siteType: 'website',
      socialPlatform: null,
      socialUsername: null,
      isClaimed: false,
      isPromoted: false,
      ownerId: null,
      submittedBy: null,
      scrapeStatus: 'pending',
      faviconUrl: null,
      ogImageUrl: null,
    });
    expect(typeof site.hotScore).toBe('number');
    expect(site.firstSubmittedAt).toBeInstanceOf(Date);
  });

  it('stores a profile site and refuses a profile without its social fields', async () => {
    const profile = await db.site.create({
      data: siteData('gh', {
        url: 'https://github.com/octocat',
        domain: 'github.com',
        siteType: 'profile',
        socialPlatform: 'github',
        socialUsername: 'octocat',
      }),
    });
    expect(profile.socialPlatform).toBe('github');
    await expect(
      db.site.create({ data: siteData('bad-profile', { siteType: 'profile' }) }),
    ).rejects.toThrow();
    await expect(
      db.site.create({
        data: siteData('bad-website', { socialPlatform: 'x', socialUsername: 'a' }),
      }),
    ).rejects.toThrow();
  });

  it('refuses a duplicate (normalised) URL', async () => {
    await db.site.create({ data: siteData('dup') });
    await expectUniqueViolation(
      db.site.create({ data: siteData('dup2', { url: 'https://dup.example/' }) }),
    );
  });

  it('refuses tags outside the 11 and more than 3 tags', async () => {
    const ok = await db.site.create({
      data: siteData('tagged', { tags: ['工具', '技术', '设计'] }),
    });
    expect(ok.tags).toEqual(['工具', '技术', '设计']);
    await expect(
      db.site.create({ data: siteData('bad-tag', { tags: ['tools'] }) }),
    ).rejects.toThrow();
    await expect(
      db.site.create({ data: siteData('four-tags', { tags: ['工具', '技术', '设计', '新闻'] }) }),
    ).rejects.toThrow();
  });

  it('keeps one submission row per user and site, one bookmark per user and site', async () => {
    await db.site.create({ data: siteData('subm') });
    await db.siteSubmission.create({ data: { siteId: 'subm', userId: 'u1' } });
    await expectUniqueViolation(
      db.siteSubmission.create({ data: { siteId: 'subm', userId: 'u1' } }),
    );
    await db.bookmark.create({ data: { siteId: 'subm', userId: 'u1' } });
    await expectUniqueViolation(db.bookmark.create({ data: { siteId: 'subm', userId: 'u1' } }));
    expect(await db.siteSubmission.count({ where: { userId: 'u1' } })).toBe(1);
  });

  it('counts boosts per user or per IP hash and UTC day, and needs one of them', async () => {
    await db.site.create({ data: siteData('boosted') });
    const day = new Date('2026-11-22T00:00:00.000Z');
    await db.boost.createMany({
      data: [
        { id: 'b1', siteId: 'boosted', userId: 'u1', day },
        { id: 'b2', siteId: 'boosted', userId: 'u1', day },
        { id: 'b3', siteId: 'boosted', ipHash: 'h1', day },
        { id: 'b4', siteId: 'boosted', userId: 'u1', day: new Date('2026-11-21T00:00:00.000Z') },
      ],
    });
    expect(await db.boost.count({ where: { userId: 'u1', day } })).toBe(2);
    expect(await db.boost.count({ where: { ipHash: 'h1', day } })).toBe(1);
    await expect(db.boost.create({ data: { id: 'b5', siteId: 'boosted', day } })).rejects.toThrow();
  });

  it('derives hot_score from the counters and the submission time (rises with activity, decays with age)', async () => {
    const at = new Date('2026-11-20T00:00:00.000Z');
    const base = await db.site.create({ data: siteData('hot', { firstSubmittedAt: at }) });
    const after = async (data: Prisma.SiteUpdateInput) =>
      (await db.site.update({ where: { id: 'hot' }, data })).hotScore;
    const clicked = await after({ clickCount: { increment: 1 } });
    const resubmitted = await after({ submitCount: { increment: 1 } });
    const boosted = await after({ boostCount: { increment: 1 } });
    expect(clicked).toBeGreaterThan(base.hotScore);
    expect(resubmitted).toBeGreaterThan(clicked);
    expect(boosted).toBeGreaterThan(resubmitted);
    // The documented formula.
    const points = 2 * 2 + 1 + 5 * 1;
    const seconds = (at.getTime() - Date.UTC(2026, 0, 1)) / 1000;
    expect(boosted).toBeCloseTo(Math.log10(points) + seconds / 45000, 9);
    // A newer site with the same counters ranks higher.
    const newer = await db.site.create({
      data: siteData('hot-newer', {
        firstSubmittedAt: new Date(at.getTime() + 3600_000),
        submitCount: 2,
        clickCount: 1,
        boostCount: 1,
      }),
    });
    expect(newer.hotScore).toBeGreaterThan(boosted);
  });

  it('searches title, description, url/domain and tags, CJK included', async () => {
    await db.site.create({
      data: siteData('cjk', {
        title: '开源设计资源',
        description: 'Free icons for everyone',
        tags: ['设计', '资源'],
        domain: 'icons.example',
      }),
    });
    const search = async (q: string) =>
      (
        await db.$queryRawUnsafe<Array<{ id: string }>>(
          `SELECT id FROM "${schema}".sites WHERE search_document @@ "${schema}".svc_search_query($1) ORDER BY id`,
          q,
        )
      ).map((r) => r.id);
    expect(await search('设计')).toEqual(['cjk', 'tagged']); // title of one, tag of the other
    expect(await search('开源')).toEqual(['cjk']);
    expect(await search('ICONS')).toEqual(['cjk']);
    expect(await search('资源 free')).toEqual(['cjk']);
    expect(await search('源开')).toEqual([]);
    expect(await search('tagged.example')).toEqual(['tagged']);
  });

  it('has the indexes the listings, filters and searches need', async () => {
    const rows = await db.$queryRaw<Array<{ indexname: string; indexdef: string }>>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${schema}`;
    const defs = new Map(rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.get('sites_url_key')).toMatch(/UNIQUE INDEX .* \(url\)/);
    expect(defs.get('sites_hot_idx')).toMatch(/\(hot_score DESC, id\) WHERE \(hidden_at IS NULL\)/);
    expect(defs.get('sites_recent_idx')).toMatch(/\(first_submitted_at DESC, id\) WHERE \(hidden_at IS NULL\)/);
    expect(defs.get('sites_sitemap_idx')).toMatch(
      /\(hashtext\(id\), id\) INCLUDE \(last_activity_at\) WHERE \(hidden_at IS NULL\)/,
    );
    expect(defs.get('sites_tags_idx')).toMatch(/USING gin \(tags\)/);
    expect(defs.get('sites_search_idx')).toMatch(/USING gin \(search_document\)/);
    expect(defs.get('sites_scrape_pending_idx')).toMatch(/WHERE \(scrape_status = 'pending'/);
    expect(defs.get('sites_untagged_idx')).toMatch(/\(first_submitted_at\) WHERE \(\(tags = /);
    expect(defs.get('site_submissions_user_idx')).toMatch(/\(user_id, created_at DESC\)/);
    expect(defs.get('bookmarks_pkey')).toMatch(/\(user_id, site_id\)/);
    expect(defs.get('boosts_user_day_idx')).toMatch(/\(user_id, day\)/);
    expect(defs.get('boosts_ip_day_idx')).toMatch(/\(ip_hash, day\)/);
  });

  it('serves the visible sites’ hot order and a sitemap file from their indexes alone (no sort step)', async () => {
    const explain = (sql: string) =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
        const plan = await tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${sql}`);
        return plan.map((r) => r['QUERY PLAN']).join('\n');
      });
    const hot = await explain(
      `SELECT id FROM "${schema}".sites WHERE hidden_at IS NULL ORDER BY hot_score DESC, id LIMIT 60 OFFSET 6000`,
    );
    expect(hot).toMatch(/Index Only Scan using sites_hot_idx/);
    expect(hot).not.toMatch(/\bSort\b/);
    const file = await explain(
      `SELECT id, last_activity_at FROM "${schema}".sites WHERE hidden_at IS NULL AND hashtext(id) >= 0 AND hashtext(id) < 1000 ORDER BY hashtext(id), id`,
    );
    expect(file).toMatch(/Index Only Scan using sites_sitemap_idx/);
    expect(file).not.toMatch(/\bSort\b/);
  });
});

describe('migration public_image_urls', () => {
  // What the scraper stored before the URL policy: URL.href serialisations.
  const images = [
    'https://cdn.example.com/a.png',
    'https://example.com:8443/icon.ico',
    'http://93.184.216.34/x.png',
    'http://[2606:4700:4700::1111]/x.png',
    'https://user@img.example.org/p.jpg',
    'http://127.0.0.1/x.png',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3:8080/x.png',
    'http://100.64.0.1/x.png',
    'http://192.168.0.1/x.png',
    'http://172.20.0.1/x.png',
    'http://255.255.255.255/x.png',
    'http://0.0.0.0/x.png',
    'http://[::1]/x.png',
    'http://[fd00::1]/x.png',
    'http://[fe80::1]/x.png',
    'http://[64:ff9b::a00:1]/x.png',
    'http://[2002:a00:1::1]/x.png',
    'http://[2001::1]/x.png',
    'http://[2001:db8::1]/x.png',
    'http://localhost:3000/x.png',
    'http://app.localhost/x.png',
    'http://printer.local/x.png',
    'http://metadata.google.internal/x.png',
    'http://router.home.arpa/x.png',
    'http://intranet/x.png',
  ];

  it('nulls the stored icon and image URLs the URL policy refuses, and keeps the rest', async () => {
    for (const [i, url] of images.entries()) {
      await db.site.create({
        data: siteData(`img-${i}`, { faviconUrl: url, ogImageUrl: i % 2 ? url : null }),
      });
    }
    const sql = readFileSync(
      `${migrations}/20261123020000_public_image_urls/migration.sql`,
      'utf8',
    );
    const pool = createPgPool(testDb.target, 1);
    try {
      await pool.query(sql); // the migration again, now that there are rows
    } finally {
      await pool.end();
    }
    for (const [i, url] of images.entries()) {
      const row = await db.site.findUniqueOrThrow({ where: { id: `img-${i}` } });
      const kept = checkPublicUrl(url).ok ? url : null;
      expect({ url, favicon: row.faviconUrl }).toEqual({ url, favicon: kept });
      expect(row.ogImageUrl).toBe(i % 2 ? kept : null);
    }
    // The helper function was temporary.
    const fns = await db.$queryRaw<unknown[]>`
      SELECT 1 FROM pg_proc WHERE proname = 'svc_migration_public_http_url'`;
    expect(fns).toHaveLength(0);
  });
});
