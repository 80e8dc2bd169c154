// The listing SQL builder: values only ever travel as bound parameters, numbered in order;
// a page is found by id on the listing index (offset or cursor), one row more than a page.
import { describe, expect, it } from '@jest/globals';
import { siteListPageQuery, siteListWhere } from '../src/domain/site-list-query.js';

describe('site list SQL', () => {
  it('binds tag, search, limit and offset as parameters, never in the text', () => {
    const search = "x'); DROP TABLE sites; --";
    const q = siteListPageQuery({ sort: 'recent', start: { offset: 120 }, tag: '工具', search });
    expect(q.params).toEqual(['工具', search, 61, 120]);
    expect(q.sql).not.toContain(search);
    expect(q.sql).not.toContain('工具');
    expect(q.sql).toContain('s.tags @> ARRAY[$1::text]');
    expect(q.sql).toContain('svc_search_query($2)');
    expect(q.sql).toContain('ORDER BY s.first_submitted_at DESC, s.id LIMIT $3 OFFSET $4');
  });

  it('orders hot by hot_score then id, and numbers parameters from 1 without filters', () => {
    const q = siteListPageQuery({ sort: 'hot', start: { offset: 0 } });
    expect(q.params).toEqual([61, 0]);
    expect(q.sql).toContain(
      'WHERE s.hidden_at IS NULL ORDER BY s.hot_score DESC, s.id LIMIT $1 OFFSET $2',
    );
  });

  it('starts after a cursor with the key bound and typed, without an offset', () => {
    const after = { sort: 'hot' as const, key: '621.5', id: "a'b" };
    const q = siteListPageQuery({ sort: 'hot', start: { after }, search: 'news' });
    expect(q.params).toEqual(['news', '621.5', "a'b", 61]);
    expect(q.sql).toContain(
      'AND s.hot_score <= $2::float8 AND (s.hot_score < $2::float8 OR s.id > $3) ORDER BY s.hot_score DESC, s.id LIMIT $4)',
    );
    expect(q.sql).not.toContain('OFFSET');
    const recent = siteListPageQuery({
      sort: 'recent',
      start: { after: { sort: 'recent', key: '2026-01-02T03:04:05.678Z', id: 'x' } },
    });
    expect(recent.sql).toContain('s.first_submitted_at <= $1::timestamp(3)');
  });

  it('filters visible sites by tag and search, numbering after the given parameters', () => {
    expect(siteListWhere({})).toEqual({ sql: 's.hidden_at IS NULL', params: [] });
    expect(siteListWhere({ tag: '工具', search: 'news' }, ['x'])).toEqual({
      sql: 's.hidden_at IS NULL AND s.tags @> ARRAY[$2::text] AND s.search_document @@ svc_search_query($3)',
      params: ['x', '工具', 'news'],
    });
  });
});
