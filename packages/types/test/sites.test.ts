import { describe, it, expect } from '@jest/globals';
import {
  Bookmark,
  BookmarkListResponse,
  BoostSiteResponse,
  ClaimSiteResponse,
  CreateBookmarkBody,
  CreateBookmarkResponse,
  DailyBgResponse,
  MySubmissionsResponse,
  RecordClickResponse,
  Site,
  SiteListQuery,
  SiteListResponse,
  SiteTagsResponse,
  SITES_CURSOR_MAX_LENGTH,
  SITES_PAGE_TOO_DEEP,
  SubmitSiteBody,
  SubmitSiteCreatedResponse,
  SubmitSiteExistingResponse,
} from '../src/sites.js';
import { SITE_TAGS, SITES_MAX_OFFSET, SITES_MAX_PAGE, SITES_PAGE_SIZE } from '../src/constants.js';
import { T, site } from './fixtures.js';

describe('Site', () => {
  it('parses a website and a profile', () => {
    expect(Site.parse(site)).toEqual(site);
    const profile = {
      ...site,
      site_type: 'profile',
      social_platform: 'github',
      social_username: 'octocat',
      tags: ['技术'],
    };
    expect(Site.safeParse(profile).success).toBe(true);
  });

  it('requires every field and bounds tags to 3 of the 11', () => {
    const { domain: _d, ...noDomain } = site;
    expect(Site.safeParse(noDomain).success).toBe(false);
    expect(Site.safeParse({ ...site, tags: ['工具', '技术', '设计', '新闻'] }).success).toBe(false);
    expect(Site.safeParse({ ...site, tags: ['tools'] }).success).toBe(false);
    expect(Site.safeParse({ ...site, site_type: 'blog' }).success).toBe(false);
    expect(Site.safeParse({ ...site, social_platform: 'myspace' }).success).toBe(false);
  });
});

describe('site list query', () => {
  it('defaults sort hot and page 1, coerces page', () => {
    expect(SiteListQuery.parse({})).toEqual({ sort: 'hot', page: 1 });
    expect(
      SiteListQuery.parse({ page: '3', sort: 'recent', tag: '工具', search: ' 设计 ' }),
    ).toEqual({
      page: 3,
      sort: 'recent',
      tag: '工具',
      search: '设计',
    });
  });

  it('rejects page 0, bad sort and a tag not in the set', () => {
    expect(SiteListQuery.safeParse({ page: '0' }).success).toBe(false);
    expect(SiteListQuery.safeParse({ page: '-1' }).success).toBe(false);
    expect(SiteListQuery.safeParse({ page: 'x' }).success).toBe(false);
    expect(SiteListQuery.safeParse({ sort: 'top' }).success).toBe(false);
    expect(SiteListQuery.safeParse({ tag: 'tools' }).success).toBe(false);
  });

  it('caps page where OFFSET stops, and takes a cursor instead', () => {
    expect(SITES_MAX_PAGE * SITES_PAGE_SIZE).toBeLessThanOrEqual(SITES_MAX_OFFSET);
    expect(SiteListQuery.safeParse({ page: String(SITES_MAX_PAGE) }).success).toBe(true);
    const deep = SiteListQuery.safeParse({ page: String(SITES_MAX_PAGE + 1) });
    expect(deep.success).toBe(false);
    expect(deep.error?.issues[0]?.message).toBe(SITES_PAGE_TOO_DEEP);
    expect(SITES_PAGE_TOO_DEEP).toMatch(/cursor/);
    expect(SiteListQuery.parse({ cursor: 'abc' })).toMatchObject({ cursor: 'abc', page: 1 });
    expect(SiteListQuery.safeParse({ cursor: '' }).success).toBe(false);
    expect(SiteListQuery.safeParse({ cursor: 'x'.repeat(SITES_CURSOR_MAX_LENGTH + 1) }).success).toBe(false);
  });

  it('list response', () => {
    const page = { sites: [site], total: 1, total_exact: true, page: 1, hasMore: false, next_cursor: null };
    expect(SiteListResponse.safeParse(page).success).toBe(true);
    expect(SiteListResponse.safeParse({ ...page, next_cursor: 'abc', hasMore: true }).success).toBe(true);
    expect(SiteListResponse.safeParse({ sites: [site], total: 1, page: 1 }).success).toBe(false);
    const { next_cursor: _c, ...withoutCursor } = page;
    expect(SiteListResponse.safeParse(withoutCursor).success).toBe(false);
  });
});

describe('submit site', () => {
  it('url is required and ≤ 2048; captchaToken optional', () => {
    expect(SubmitSiteBody.safeParse({ url: 'https://example.com' }).success).toBe(true);
    expect(
      SubmitSiteBody.safeParse({ url: 'https://example.com', captchaToken: 'tok' }).success,
    ).toBe(true);
    expect(SubmitSiteBody.safeParse({}).success).toBe(false);
    expect(SubmitSiteBody.safeParse({ url: '' }).success).toBe(false);
    expect(SubmitSiteBody.safeParse({ url: 'h'.repeat(2048) }).success).toBe(true);
    expect(SubmitSiteBody.safeParse({ url: 'h'.repeat(2049) }).success).toBe(false);
  });

  it('responses distinguish new and known sites', () => {
    expect(SubmitSiteCreatedResponse.safeParse({ site, isNew: true }).success).toBe(true);
    expect(SubmitSiteCreatedResponse.safeParse({ site, isNew: false }).success).toBe(false);
    expect(SubmitSiteExistingResponse.safeParse({ site, isNew: false }).success).toBe(true);
  });
});

describe('other site responses', () => {
  it('tags, boost, claim, click, my-submissions', () => {
    expect(SiteTagsResponse.safeParse({ tags: [...SITE_TAGS] }).success).toBe(true);
    expect(BoostSiteResponse.safeParse({ site, credits: 2 }).success).toBe(true);
    expect(BoostSiteResponse.safeParse({ site, credits: -1 }).success).toBe(false);
    expect(ClaimSiteResponse.safeParse({ site, verified: true }).success).toBe(true);
    expect(ClaimSiteResponse.safeParse({ site, verified: false }).success).toBe(false);
    expect(RecordClickResponse.safeParse({ recorded: true }).success).toBe(true);
    expect(MySubmissionsResponse.safeParse({ sites: [site] }).success).toBe(true);
  });

  it('bookmarks', () => {
    const bookmark = { site_id: site.id, created_at: T };
    expect(Bookmark.parse(bookmark)).toEqual(bookmark);
    expect(CreateBookmarkBody.safeParse({ site_id: site.id }).success).toBe(true);
    expect(CreateBookmarkBody.safeParse({ site_id: '' }).success).toBe(false);
    expect(CreateBookmarkBody.safeParse({}).success).toBe(false);
    expect(CreateBookmarkResponse.safeParse({ bookmark }).success).toBe(true);
    expect(BookmarkListResponse.safeParse({ bookmarks: [bookmark] }).success).toBe(true);
  });

  it('daily background', () => {
    const bg = {
      imageUrl: '/api/daily-bg/image',
      videoUrl: null,
      copyright: '© someone',
      title: 'A lake',
    };
    expect(DailyBgResponse.parse(bg)).toEqual(bg);
    expect(DailyBgResponse.safeParse({ ...bg, videoUrl: 'https://v.example/x.mp4' }).success).toBe(
      true,
    );
    const { videoUrl: _v, ...noVideo } = bg;
    expect(DailyBgResponse.safeParse(noVideo).success).toBe(false);
  });
});
