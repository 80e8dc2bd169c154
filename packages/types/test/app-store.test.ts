import { describe, it, expect } from '@jest/globals';
import { APP_CATEGORIES } from '../src/constants.js';
import {
  ApiKeyListResponse,
  App,
  AppDetail,
  AppDetailResponse,
  AppListItem,
  AppListQuery,
  AppListResponse,
  AppStoreMeResponse,
  CategoriesResponse,
  CreateApiKeyResponse,
  InstallAppResponse,
  InstalledAppsResponse,
  MyAppsResponse,
  ReportAppBody,
  ReportAppResponse,
  SubmitAppBody,
  SubmitAppResponse,
  UpdateAppBody,
  WithdrawAppQuery,
} from '../src/app-store.js';

const T = '2026-11-21T10:00:00.000Z';
const app: App = {
  id: 'a1',
  slug: 'my-app',
  name: 'My App',
  description: '',
  url: 'https://example.com',
  category: 'tools',
  app_type: 'web',
  open_mode: 'iframe',
  status: 'approved',
  downloads: 0,
  author_name: 'ann',
  chain: null,
  icon_gradient_from: null,
  icon_gradient_to: null,
  icon_svg: null,
  tech_tags: [],
  svc_sdk_version: null,
};
const detail: AppDetail = { ...app, created_at: T, updated_at: T, report_count: 0 };
const submit = { slug: 'my-app', name: 'My App', url: 'https://example.com/app' };

describe('app-store records', () => {
  it('App, listing and detail parse', () => {
    expect(App.parse(app)).toEqual(app);
    const listed = AppListItem.parse({ ...app, has_icon: false });
    expect(Object.keys(listed).sort()).toEqual(
      [
        'id',
        'slug',
        'name',
        'description',
        'url',
        'category',
        'app_type',
        'open_mode',
        'status',
        'downloads',
        'author_name',
        'icon_gradient_from',
        'icon_gradient_to',
        'has_icon',
      ].sort(),
    );
    // The listing never carries the SVG, only whether there is one.
    expect(listed).not.toHaveProperty('icon_svg');
    expect(AppListItem.safeParse(app).success).toBe(false);
    expect(
      AppListItem.safeParse({ ...app, has_icon: true, icon_gradient_from: 'red' }).success,
    ).toBe(false);
    expect(AppDetailResponse.parse({ app: detail })).toEqual({ app: detail });
    expect(AppDetail.safeParse(app).success).toBe(false);
    expect(App.safeParse({ ...app, status: 'pending' }).success).toBe(false);
  });

  it('listing response has meta with count and total', () => {
    const r = {
      apps: [{ ...app, has_icon: false }],
      meta: { limit: 50, offset: 0, count: 1, total: 1, total_exact: true, has_more: false },
    };
    expect(AppListResponse.safeParse(r).success).toBe(true);
    expect(AppListResponse.safeParse({ ...r, meta: { limit: 50, offset: 0, count: 1, total: 1 } }).success).toBe(false);
    expect(AppListResponse.safeParse({ apps: [] }).success).toBe(false);
  });

  it('has exactly the 12 categories', () => {
    expect(APP_CATEGORIES).toHaveLength(12);
    expect(CategoriesResponse.safeParse({ categories: [...APP_CATEGORIES] }).success).toBe(true);
  });
});

describe('app list query', () => {
  it('coerces and defaults limit/offset', () => {
    expect(AppListQuery.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(
      AppListQuery.parse({
        limit: '10',
        offset: '5',
        category: 'games',
        app_type: 'dapp',
        q: ' chat ',
      }),
    ).toEqual({
      limit: 10,
      offset: 5,
      category: 'games',
      app_type: 'dapp',
      q: 'chat',
    });
  });

  it('rejects limit 101, limit 0, negative offset and unknown filters', () => {
    expect(AppListQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(AppListQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(AppListQuery.safeParse({ offset: '-1' }).success).toBe(false);
    expect(AppListQuery.safeParse({ category: 'weather' }).success).toBe(false);
    expect(AppListQuery.safeParse({ app_type: 'native' }).success).toBe(false);
  });
});

describe('submit app', () => {
  it('applies defaults', () => {
    expect(SubmitAppBody.parse(submit)).toEqual({
      ...submit,
      description: '',
      category: 'tools',
      app_type: 'web',
      open_mode: 'iframe',
    });
  });

  it('slug is 3–64 lower-case kebab', () => {
    expect(SubmitAppBody.safeParse({ ...submit, slug: 'abc' }).success).toBe(true);
    expect(SubmitAppBody.safeParse({ ...submit, slug: 'a'.repeat(64) }).success).toBe(true);
    for (const slug of [
      'ab',
      'a'.repeat(65),
      'My-App',
      'my--app',
      '-app',
      'app-',
      'my_app',
      'my app',
    ]) {
      expect(SubmitAppBody.safeParse({ ...submit, slug }).success).toBe(false);
    }
  });

  it('name 1–80, description ≤ 2000, chain ≤ 64', () => {
    expect(SubmitAppBody.safeParse({ ...submit, name: 'n'.repeat(80) }).success).toBe(true);
    expect(SubmitAppBody.safeParse({ ...submit, name: 'n'.repeat(81) }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, name: '' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, name: '   ' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, description: 'd'.repeat(2000) }).success).toBe(
      true,
    );
    expect(SubmitAppBody.safeParse({ ...submit, description: 'd'.repeat(2001) }).success).toBe(
      false,
    );
    expect(SubmitAppBody.safeParse({ ...submit, chain: 'c'.repeat(64) }).success).toBe(true);
    expect(SubmitAppBody.safeParse({ ...submit, chain: 'c'.repeat(65) }).success).toBe(false);
  });

  it('url must be https and ≤ 2048', () => {
    expect(SubmitAppBody.safeParse({ ...submit, url: 'http://example.com' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, url: 'https:example.com' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, url: 'javascript:alert(1)' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, url: 'not a url' }).success).toBe(false);
    const base = 'https://example.com/';
    expect(
      SubmitAppBody.safeParse({ ...submit, url: base + 'p'.repeat(2048 - base.length) }).success,
    ).toBe(true);
    expect(
      SubmitAppBody.safeParse({ ...submit, url: base + 'p'.repeat(2049 - base.length) }).success,
    ).toBe(false);
  });

  it('rejects unknown enums and missing required fields', () => {
    expect(SubmitAppBody.safeParse({ ...submit, category: 'weather' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, app_type: 'native' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ ...submit, open_mode: 'popup' }).success).toBe(false);
    expect(SubmitAppBody.safeParse({ slug: 'abc', name: 'x' }).success).toBe(false);
  });

  it('response status is approved', () => {
    expect(
      SubmitAppResponse.safeParse({ id: 'a1', slug: 'my-app', status: 'approved' }).success,
    ).toBe(true);
    expect(
      SubmitAppResponse.safeParse({ id: 'a1', slug: 'my-app', status: 'blocked' }).success,
    ).toBe(false);
  });
});

describe('update app (PATCH)', () => {
  const full = {
    name: 'New',
    description: 'desc',
    icon_gradient_from: '#00ff88',
    icon_gradient_to: '#AABBCC',
    icon_svg: '<svg xmlns="http://www.w3.org/2000/svg"/>',
    tech_tags: ['react', 'wasm'],
    category: 'games',
    chain: 'ethereum',
    svc_sdk_version: '1.2.3-beta.1+build.5',
  };

  it('accepts every updatable field and an empty body', () => {
    expect(UpdateAppBody.parse(full)).toEqual(full);
    expect(UpdateAppBody.parse({})).toEqual({});
    expect(UpdateAppBody.safeParse({ chain: null, icon_svg: null }).success).toBe(true);
  });

  it('rejects unknown and non-updatable fields', () => {
    expect(UpdateAppBody.safeParse({ foo: 1 }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ slug: 'other' }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ status: 'approved' }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ url: 'https://x.com' }).success).toBe(false);
  });

  it('enforces colours, svg size, tags, category and semver', () => {
    for (const c of ['#fff', 'red', '00ff88', '#00ff8', '#00ff888', '#gg0000']) {
      expect(UpdateAppBody.safeParse({ icon_gradient_from: c }).success).toBe(false);
    }
    expect(UpdateAppBody.safeParse({ icon_svg: 'x'.repeat(20480) }).success).toBe(true);
    expect(UpdateAppBody.safeParse({ icon_svg: 'x'.repeat(20481) }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ icon_svg: 42 }).success).toBe(false);
    expect(
      UpdateAppBody.safeParse({ tech_tags: Array.from({ length: 10 }, (_, i) => `t${i}`) }).success,
    ).toBe(true);
    expect(
      UpdateAppBody.safeParse({ tech_tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }).success,
    ).toBe(false);
    expect(UpdateAppBody.safeParse({ tech_tags: ['t'.repeat(32)] }).success).toBe(true);
    expect(UpdateAppBody.safeParse({ tech_tags: ['t'.repeat(33)] }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ tech_tags: [1] }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ category: 'weather' }).success).toBe(false);
    for (const v of ['1.2', 'v1.2.3', '01.2.3', 'latest']) {
      expect(UpdateAppBody.safeParse({ svc_sdk_version: v }).success).toBe(false);
    }
    expect(UpdateAppBody.safeParse({ name: 'n'.repeat(81) }).success).toBe(false);
    expect(UpdateAppBody.safeParse({ name: null }).success).toBe(false);
  });
});

describe('report', () => {
  it('defaults reason to other and bounds detail', () => {
    expect(ReportAppBody.parse({})).toEqual({ reason: 'other' });
    expect(ReportAppBody.parse({ reason: 'spam', detail: 'd'.repeat(500) }).reason).toBe('spam');
    expect(ReportAppBody.safeParse({ detail: 'd'.repeat(501) }).success).toBe(false);
    expect(ReportAppBody.safeParse({ reason: 'boring' }).success).toBe(false);
  });

  it('response shape', () => {
    const r = {
      success: true,
      report_count: 5,
      blocked: true,
      message: 'App was automatically blocked',
    };
    expect(ReportAppResponse.parse(r)).toEqual(r);
    expect(ReportAppResponse.safeParse({ ...r, report_count: -1 }).success).toBe(false);
  });
});

describe('me, installs and keys', () => {
  it('me and lists', () => {
    const user = {
      id: 'u1',
      display_name: 'ann',
      email: 'a@b.co',
      avatar_url: 'https://www.gravatar.com/avatar/x?d=identicon',
    };
    expect(AppStoreMeResponse.safeParse({ user }).success).toBe(true);
    const block = {
      blocked_at: '2026-11-23T05:00:00.000Z',
      by: 'reports',
      reason_summary: '5 reports: 3 spam, 2 malware',
      appeal: null,
      can_appeal: true,
    };
    const mine = {
      ...app,
      status: 'blocked',
      has_icon: false,
      block,
      withdrawn_at: null,
      purge_at: null,
    };
    expect(MyAppsResponse.safeParse({ apps: [mine] }).success).toBe(true);
    // `block` is required (null unless blocked) and names who blocked: reports or a moderator
    expect(MyAppsResponse.safeParse({ apps: [{ ...mine, block: null }] }).success).toBe(true);
    expect(MyAppsResponse.safeParse({ apps: [{ ...mine, block: undefined }] }).success).toBe(false);
    expect(
      MyAppsResponse.safeParse({ apps: [{ ...mine, block: { ...block, by: 'user' } }] }).success,
    ).toBe(false);
    expect(MyAppsResponse.safeParse({ apps: [app] }).success).toBe(false);
    // A withdrawn app says when, and when it goes for good; both fields are always there.
    const withdrawn = {
      ...mine,
      status: 'withdrawn',
      block: null,
      withdrawn_at: T,
      purge_at: '2026-12-21T10:00:00.000Z',
    };
    expect(MyAppsResponse.safeParse({ apps: [withdrawn] }).success).toBe(true);
    expect(
      MyAppsResponse.safeParse({ apps: [{ ...withdrawn, purge_at: undefined }] }).success,
    ).toBe(false);
    expect(
      MyAppsResponse.safeParse({ apps: [{ ...withdrawn, withdrawn_at: 'yesterday' }] }).success,
    ).toBe(false);
    expect(InstalledAppsResponse.safeParse({ apps: [{ ...app, has_icon: true }] }).success).toBe(
      true,
    );
    expect(InstallAppResponse.safeParse({ installed: true }).success).toBe(true);
  });

  it('API key shapes; the list carries no secret', () => {
    expect(
      CreateApiKeyResponse.safeParse({
        id: 'k1',
        key: 'svc_live_abc123',
        prefix: 'svc_live_ab',
        created_at: T,
      }).success,
    ).toBe(true);
    expect(
      CreateApiKeyResponse.safeParse({ id: 'k1', key: 'sk_abc', prefix: 'x', created_at: T })
        .success,
    ).toBe(false);
    const item = {
      id: 'k1',
      prefix: 'svc_live_ab',
      created_at: T,
      last_used_at: null,
      revoked_at: T,
      key: 'svc_live_abc',
    };
    const parsed = ApiKeyListResponse.parse({ keys: [item] });
    expect(parsed.keys[0]).not.toHaveProperty('key');
  });
});

describe('withdrawal', () => {
  it('permanent is false unless the query says true; anything else is refused', () => {
    expect(WithdrawAppQuery.parse({})).toEqual({ permanent: 'false' });
    expect(WithdrawAppQuery.parse({ permanent: 'true' })).toEqual({ permanent: 'true' });
    for (const permanent of ['1', 'yes', 'TRUE', '', ['true', 'true']])
      expect(WithdrawAppQuery.safeParse({ permanent }).success).toBe(false);
  });

  it('withdrawn is a status of the record, other words are not', () => {
    expect(App.safeParse({ ...app, status: 'withdrawn' }).success).toBe(true);
    expect(App.safeParse({ ...app, status: 'deleted' }).success).toBe(false);
  });
});
