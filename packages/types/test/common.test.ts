import { describe, it, expect } from '@jest/globals';
import {
  ErrorResponse,
  IsoDateTime,
  LanguageCode,
  OffsetPaginationQuery,
  PageParam,
  RATE_LIMIT_HEADERS,
  SiteTag,
} from '../src/common.js';
import { LANGUAGE_CODES, SITE_TAGS } from '../src/constants.js';

describe('common', () => {
  it('ErrorResponse requires error and allows details', () => {
    expect(ErrorResponse.safeParse({ error: 'Too many requests' }).success).toBe(true);
    expect(ErrorResponse.safeParse({ error: 'Invalid', details: [{ path: ['x'] }] }).success).toBe(
      true,
    );
    expect(ErrorResponse.safeParse({ message: 'x' }).success).toBe(false);
  });

  it('IsoDateTime accepts UTC Z timestamps only', () => {
    expect(IsoDateTime.safeParse('2026-11-21T10:00:00.000Z').success).toBe(true);
    expect(IsoDateTime.safeParse('2026-11-21T10:00:00+01:00').success).toBe(false);
    expect(IsoDateTime.safeParse('2026-11-21').success).toBe(false);
  });

  it('has the 12 language codes and the 11 tags', () => {
    expect(LANGUAGE_CODES).toHaveLength(12);
    expect(LanguageCode.safeParse('zh-HK').success).toBe(true);
    expect(LanguageCode.safeParse('ru').success).toBe(false);
    expect(SITE_TAGS).toEqual([
      '工具',
      '技术',
      '设计',
      '新闻',
      '社区',
      '学习',
      '娱乐',
      '资源',
      '商业',
      '生活',
      '社交',
    ]);
    expect(SiteTag.safeParse('游戏').success).toBe(false);
  });

  it('pagination coerces and defaults', () => {
    expect(OffsetPaginationQuery.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(OffsetPaginationQuery.parse({ limit: '100', offset: '20' })).toEqual({
      limit: 100,
      offset: 20,
    });
    expect(OffsetPaginationQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(OffsetPaginationQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(OffsetPaginationQuery.safeParse({ offset: '-1' }).success).toBe(false);
    expect(OffsetPaginationQuery.safeParse({ limit: '1.5' }).success).toBe(false);
    expect(OffsetPaginationQuery.safeParse({ limit: 'abc' }).success).toBe(false);
    expect(PageParam.parse(undefined)).toBe(1);
    expect(PageParam.safeParse('0').success).toBe(false);
  });

  it('names the rate-limit headers', () => {
    expect(Object.values(RATE_LIMIT_HEADERS).sort()).toEqual(
      ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'].sort(),
    );
  });
});
