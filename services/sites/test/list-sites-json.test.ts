// GET /api/sites bodies are built by PostgreSQL (store/site-list-reader.ts). They must be byte
// for byte what the former Prisma path produced: rows read with the generated client,
// shaped by toSite and serialised by JSON.stringify. Data covers the awkward cases: nulls,
// escapes and control characters, non-ASCII text, millisecond times, profiles, claims,
// several pages and equal sort keys (id tie-break). The cursor of the next page names the
// last site's sort key as PostgreSQL writes it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Prisma } from '../src/generated/prisma/client.js';
import { SITES_PAGE_SIZE, type SiteListResponse, type SiteSort, type SiteTag } from '@svc/types';
import { encodeSiteCursor } from '../src/domain/site-cursor.js';
import { toSite } from '../src/store/site-record.js';
import { startHarness, type Harness } from './api-harness.js';

let h: Harness;
const T0 = Date.parse('2026-03-04T05:06:07.089Z');
const TAGS = ['工具', '新闻', '设计'] as const;

beforeAll(async () => {
  h = await startHarness();
  await h.db.site.createMany({
    data: Array.from({ length: 150 }, (_, i) => ({
      id: `s${String(i).padStart(3, '0')}`,
      url: `https://site-${i}.example/p?q="x"&y=\\`,
      domain: `site-${i}.example`,
      title:
        i % 7 === 0 ? `Tools "quoted" \\ back\nline\ttab \u0001 ✓ 设计灵感 ${i}` : `Tools ${i}`,
      description: i % 3 === 0 ? '' : `desc ${i} 每日新闻 </script> \u2028`,
      faviconUrl: i % 2 ? `https://site-${i}.example/favicon.ico` : null,
      ogImageUrl: i % 5 ? null : `https://site-${i}.example/og.png`,
      tags: i % 4 === 0 ? [] : [TAGS[i % 3]!],
      // Groups of equal first_submitted_at (and equal hot_score) exercise the id tie-break.
      firstSubmittedAt: new Date(T0 + Math.floor(i / 3) * 61_123),
      lastActivityAt: new Date(T0 + i * 999_999 + 7),
      submitCount: (i % 3) + 1,
      clickCount: i % 11,
      boostCount: i % 5 === 0 ? 2 : 0,
      isClaimed: i % 9 === 0,
      isPromoted: i % 13 === 0,
      siteType: i % 10 === 0 ? 'profile' : 'website',
      socialPlatform: i % 10 === 0 ? 'github' : null,
      socialUsername: i % 10 === 0 ? `user${i}` : null,
      scrapeStatus: 'done',
    })),
  });
});
afterAll(async () => {
  await h?.close();
});

interface Filter {
  sort: SiteSort;
  page: number;
  tag?: SiteTag;
  search?: string;
}

/** The former implementation: Prisma rows → toSite → JSON.stringify. */
async function expectedBody(f: Filter): Promise<string> {
  const where = Prisma.join(
    [
      Prisma.sql`true`,
      ...(f.tag ? [Prisma.sql`tags @> ARRAY[${f.tag}]::text[]`] : []),
      ...(f.search ? [Prisma.sql`search_document @@ svc_search_query(${f.search})`] : []),
    ],
    ' AND ',
  );
  const order =
    f.sort === 'recent' ? Prisma.sql`first_submitted_at DESC, id` : Prisma.sql`hot_score DESC, id`;
  const key =
    f.sort === 'recent'
      ? Prisma.sql`to_char(first_submitted_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : Prisma.sql`hot_score::text`;
  const ids = await h.db.$queryRaw<Array<{ id: string; key: string }>>`
    SELECT id, ${key} AS key FROM sites WHERE ${where} ORDER BY ${order}
    LIMIT ${SITES_PAGE_SIZE} OFFSET ${(f.page - 1) * SITES_PAGE_SIZE}`;
  const counted = await h.db.$queryRaw<Array<{ n: bigint }>>`
    SELECT count(*) AS n FROM sites WHERE ${where}`;
  const rows = await h.db.site.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const total = Number(counted[0]!.n);
  const hasMore = f.page * SITES_PAGE_SIZE < total;
  const last = ids.at(-1);
  const body: SiteListResponse = {
    sites: ids.map((r) => toSite(byId.get(r.id)!)),
    total,
    total_exact: true,
    page: f.page,
    hasMore,
    next_cursor: hasMore && last ? encodeSiteCursor({ sort: f.sort, key: last.key, id: last.id }) : null,
  };
  return JSON.stringify(body);
}

const CASES: Filter[] = [
  { sort: 'hot', page: 1 },
  { sort: 'hot', page: 2 },
  { sort: 'hot', page: 3 },
  { sort: 'hot', page: 4 },
  { sort: 'recent', page: 1 },
  { sort: 'recent', page: 3 },
  { sort: 'hot', page: 1, tag: '工具' },
  { sort: 'recent', page: 1, tag: '设计' },
  { sort: 'hot', page: 1, search: 'tools' },
  { sort: 'recent', page: 2, search: 'tools' },
  { sort: 'hot', page: 1, search: '设计', tag: '设计' },
  { sort: 'hot', page: 1, search: 'nothing-matches-this' },
];

describe('GET /api/sites body', () => {
  it.each(CASES)('is byte for byte the former output: %j', async (f) => {
    const res = await request(h.app)
      .get('/api/sites')
      .query({ ...f })
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => cb(null, text));
      });
    expect(res.status).toBe(200);
    const expected = await expectedBody(f);
    expect(res.body).toBe(expected);
    // Not vacuous: every case but the past-the-end page and the no-match search has rows.
    const empty = f.page === 4 || f.search === 'nothing-matches-this';
    expect(JSON.parse(expected).sites.length > 0).toBe(!empty);
  });

  it('lists 150 sites over three pages, the last with hasMore false', async () => {
    const last = await request(h.app).get('/api/sites').query({ page: 3 });
    expect(last.body).toMatchObject({ total: 150, page: 3, hasMore: false, next_cursor: null });
    expect(last.body.sites).toHaveLength(30);
  });
});
