// The listing SQL builder: values only ever travel as bound parameters, numbered in order.
import { describe, expect, it } from '@jest/globals';
import { siteListCountQuery, siteListPageQuery } from '../src/domain/site-list-query.js';

describe('site list SQL', () => {
  it('binds tag, search, limit and offset as parameters, never in the text', () => {
    const search = "x'); DROP TABLE sites; --";
    const q = siteListPageQuery({ sort: 'recent', page: 3, tag: '工具', search });
    expect(q.params).toEqual(['工具', search, 60, 120]);
    expect(q.sql).not.toContain(search);
    expect(q.sql).not.toContain('工具');
    expect(q.sql).toContain('s.tags @> ARRAY[$1::text]');
    expect(q.sql).toContain('svc_search_query($2)');
    expect(q.sql).toContain('ORDER BY s.first_submitted_at DESC, s.id LIMIT $3 OFFSET $4');
  });

  it('orders hot by hot_score then id, and numbers parameters from 1 without filters', () => {
    const q = siteListPageQuery({ sort: 'hot', page: 1 });
    expect(q.params).toEqual([60, 0]);
    expect(q.sql).toContain(
      'WHERE s.hidden_at IS NULL ORDER BY s.hot_score DESC, s.id LIMIT $1 OFFSET $2',
    );
  });

  it('counts with the same filters', () => {
    const q = siteListCountQuery({ search: 'news' });
    expect(q).toEqual({
      sql: 'SELECT count(*)::int AS total FROM sites s WHERE s.hidden_at IS NULL AND s.search_document @@ svc_search_query($1)',
      params: ['news'],
    });
  });
});
