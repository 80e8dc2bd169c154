// The pure rules of the sites API: URL normalisation, social profile detection, the hot
// formula, the boost allowance, the claim meta check, the provider answer, the sitemap,
// the Idempotency-Key rules.
import { describe, expect, it } from '@jest/globals';
import { LANGUAGE_CODES } from '@svc/types';
import {
  decideBoost,
  dailyBoostLimit,
  firstKeptBoostDay,
  secondsUntilUtcMidnight,
  utcDay,
} from '../src/domain/boost-allowance.js';
import { hasClaimMeta } from '../src/domain/claim-meta.js';
import { parseProviderAnswer } from '../src/domain/daily-bg.js';
import { hotScore } from '../src/domain/hot-score.js';
import {
  idempotencyScope,
  parseIdempotencyKey,
  replayDecision,
  submissionFingerprint,
} from '../src/domain/idempotency-key.js';
import { normaliseSiteUrl } from '@svc/types';
import {
  SITEMAP_MAX_BYTES,
  SITEMAP_MAX_URLS,
  escapeXml,
  renderSitemap,
} from '../src/domain/sitemap.js';
import { detectSocialProfile } from '../src/domain/social-profile.js';

describe('normaliseSiteUrl', () => {
  it.each([
    ['HTTPS://Example.COM/', 'https://example.com', 'example.com'],
    ['https://www.example.com', 'https://www.example.com', 'example.com'],
    ['http://example.com:80/a', 'http://example.com/a', 'example.com'],
    ['https://example.com:443', 'https://example.com', 'example.com'],
    ['https://example.com:8443/', 'https://example.com:8443', 'example.com'],
    ['https://example.com/#section', 'https://example.com', 'example.com'],
    ['https://example.com/path/#x', 'https://example.com/path/', 'example.com'],
    ['https://example.com/?utm_source=x&utm_medium=y', 'https://example.com', 'example.com'],
    [
      'https://example.com/p?a=1&fbclid=z&b=2&gclid=q',
      'https://example.com/p?a=1&b=2',
      'example.com',
    ],
    [
      'https://example.com/p?UTM_Campaign=1&q=%E4%B8%AD',
      'https://example.com/p?q=%E4%B8%AD',
      'example.com',
    ],
    ['  https://example.com/Case/Path  ', 'https://example.com/Case/Path', 'example.com'],
    ['example.com/page', 'https://example.com/page', 'example.com'],
    ['example.com:8080/x', 'https://example.com:8080/x', 'example.com'],
    ['https://example.com./', 'https://example.com', 'example.com'],
    ['https://bücher.de', 'https://xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ])('%s → %s', (input, url, domain) => {
    expect(normaliseSiteUrl(input)).toEqual({ ok: true, url, domain });
  });

  it.each([
    ['', 'URL is required'],
    ['ftp://example.com', 'Only http and https URLs are accepted'],
    ['javascript:alert(1)', 'Only http and https URLs are accepted'],
    ['mailto:a@example.com', 'Only http and https URLs are accepted'],
    ['https://user:pw@example.com', 'URLs with credentials are not accepted'],
    ['http://', 'Invalid URL'],
    ['https://exa mple.com', 'Invalid URL'],
    [`https://example.com/${'a'.repeat(2048)}`, 'URL is too long'],
  ])('rejects %j', (input, reason) => {
    expect(normaliseSiteUrl(input)).toEqual({ ok: false, reason });
  });

  it('gives one spelling for equivalent URLs', () => {
    const spellings = [
      'https://Example.com',
      'https://example.com/',
      'https://example.com:443/#top',
      'https://EXAMPLE.com/?utm_source=newsletter',
    ];
    const urls = new Set(spellings.map((s) => (normaliseSiteUrl(s) as { url: string }).url));
    expect([...urls]).toEqual(['https://example.com']);
  });
});

describe('detectSocialProfile', () => {
  it.each([
    ['https://x.com/jack', 'x', 'jack'],
    ['https://twitter.com/jack', 'x', 'jack'],
    ['https://mobile.twitter.com/Jack_1', 'x', 'Jack_1'],
    ['https://github.com/torvalds', 'github', 'torvalds'],
    ['https://github.com/some-user/', 'github', 'some-user'],
    ['https://www.instagram.com/natgeo', 'instagram', 'natgeo'],
    ['https://www.linkedin.com/in/satyanadella', 'linkedin', 'satyanadella'],
    ['https://www.youtube.com/@MrBeast', 'youtube', 'MrBeast'],
    ['https://www.tiktok.com/@khaby.lame', 'tiktok', 'khaby.lame'],
    ['https://www.reddit.com/user/spez', 'reddit', 'spez'],
    ['https://medium.com/@ev', 'medium', 'ev'],
    ['https://www.threads.net/@zuck', 'threads', 'zuck'],
    ['https://www.threads.com/@zuck', 'threads', 'zuck'],
    ['https://space.bilibili.com/546195', 'bilibili', '546195'],
    ['https://weibo.com/u/1669879400', 'weibo', '1669879400'],
    ['https://weibo.com/dengchao', 'weibo', 'dengchao'],
    ['https://x.com/jack?lang=en', 'x', 'jack'],
  ])('%s is %s/%s', (url, platform, username) => {
    expect(detectSocialProfile(url)).toEqual({ platform, username });
  });

  it.each([
    // reserved first segments
    'https://github.com/settings',
    'https://github.com/explore',
    'https://github.com/login',
    'https://x.com/home',
    'https://x.com/explore',
    'https://x.com/search',
    'https://twitter.com/login',
    'https://www.instagram.com/explore',
    'https://www.instagram.com/accounts',
    'https://weibo.com/login',
    // pages below a profile, or the wrong shape for the platform
    'https://github.com/torvalds/linux',
    'https://x.com/jack/status/20',
    'https://www.youtube.com/watch',
    'https://www.youtube.com/MrBeast',
    'https://www.tiktok.com/khaby.lame',
    'https://www.linkedin.com/company/microsoft',
    'https://www.linkedin.com/satya',
    'https://www.reddit.com/r/programming',
    'https://medium.com/ev',
    'https://www.threads.net/zuck',
    'https://space.bilibili.com/abc',
    'https://www.bilibili.com/546195',
    'https://weibo.com/u/notanumber',
    'https://github.com/@torvalds',
    // root pages and other hosts
    'https://github.com',
    'https://x.com',
    'https://example.com/jack',
    'https://gist.github.com/torvalds',
    'https://notgithub.com/torvalds',
  ])('%s is not a profile', (url) => {
    expect(detectSocialProfile(url)).toBeNull();
  });

  it('covers the 11 platform families', () => {
    const samples = [
      'https://x.com/a',
      'https://github.com/a',
      'https://instagram.com/a',
      'https://linkedin.com/in/abc',
      'https://youtube.com/@abc',
      'https://tiktok.com/@ab',
      'https://reddit.com/user/abc',
      'https://medium.com/@a',
      'https://threads.net/@a',
      'https://space.bilibili.com/1',
      'https://weibo.com/u/1',
    ];
    const platforms = new Set(samples.map((u) => detectSocialProfile(u)?.platform));
    expect(platforms.size).toBe(11);
    expect(platforms.has(undefined)).toBe(false);
  });
});

describe('hotScore', () => {
  const base = {
    submitCount: 1,
    clickCount: 0,
    boostCount: 0,
    firstSubmittedAt: new Date('2026-06-01T00:00:00Z'),
  };

  it('is log10 of the weighted points plus age / 45000 s since 2026-01-01', () => {
    const seconds =
      (Date.parse('2026-06-01T00:00:00Z') - Date.parse('2026-01-01T00:00:00Z')) / 1000;
    expect(hotScore(base)).toBeCloseTo(Math.log10(2) + seconds / 45000, 10);
    expect(hotScore({ ...base, submitCount: 0, clickCount: 0 })).toBeCloseTo(seconds / 45000, 10);
  });

  it('rises with submits, clicks and boosts; a boost weighs more than a click', () => {
    const s = hotScore(base);
    const submit = hotScore({ ...base, submitCount: 2 });
    const click = hotScore({ ...base, clickCount: 1 });
    const boost = hotScore({ ...base, boostCount: 1 });
    expect(submit).toBeGreaterThan(s);
    expect(click).toBeGreaterThan(s);
    expect(boost).toBeGreaterThan(submit);
    expect(submit).toBeGreaterThan(click);
  });

  it('decays with age: 12.5 h newer equals 10× the points', () => {
    const older = hotScore({ ...base, clickCount: 18 }); // 2 + 18 = 20 points
    const newer = hotScore({
      ...base,
      firstSubmittedAt: new Date(base.firstSubmittedAt.getTime() + 45_000_000),
      submitCount: 1,
    }); // 2 points
    expect(newer).toBeCloseTo(older, 10);
    const newest = hotScore({
      ...base,
      firstSubmittedAt: new Date(base.firstSubmittedAt.getTime() + 86_400_000),
    });
    expect(newest).toBeGreaterThan(older);
  });
});

describe('boost allowance', () => {
  it('gives visitors 1 and users 3 boosts a day; credits are what is left after this one', () => {
    expect(dailyBoostLimit(false)).toBe(1);
    expect(dailyBoostLimit(true)).toBe(3);
    expect(decideBoost(false, 0)).toEqual({ allowed: true, creditsAfter: 0 });
    expect(decideBoost(false, 1)).toEqual({ allowed: false, creditsAfter: 0 });
    expect(decideBoost(true, 0)).toEqual({ allowed: true, creditsAfter: 2 });
    expect(decideBoost(true, 2)).toEqual({ allowed: true, creditsAfter: 0 });
    expect(decideBoost(true, 3)).toEqual({ allowed: false, creditsAfter: 0 });
  });

  it('counts UTC days and refills at UTC midnight', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-03-02T00:00:00.000Z'))).toBe('2026-03-02');
    expect(secondsUntilUtcMidnight(new Date('2026-03-01T23:59:00Z'))).toBe(60);
    expect(secondsUntilUtcMidnight(new Date('2026-03-01T00:00:00Z'))).toBe(86_400);
  });

  it('keeps the boosts of today and yesterday (UTC), across a month', () => {
    expect(firstKeptBoostDay(new Date('2026-03-01T00:00:00Z'))).toBe('2026-02-28');
    expect(firstKeptBoostDay(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-02-28');
    expect(firstKeptBoostDay(new Date('2026-03-02T00:00:00Z'))).toBe('2026-03-01');
  });
});

describe('hasClaimMeta', () => {
  const id = 'Site_123';
  it.each([
    `<html><head><meta name="svc-verify" content="${id}"></head><body></body></html>`,
    `<HTML><HEAD><META NAME="SVC-VERIFY" CONTENT='${id}'/></HEAD></HTML>`,
    `<head><meta content="${id}" name="svc-verify"></head>`,
    `<!doctype html><meta charset="utf-8"><meta name="svc-verify" content=" ${id} "><title>x</title><p>no head tag`,
  ])('finds the tag in %s', (html) => {
    expect(hasClaimMeta(html, id)).toBe(true);
  });

  it.each([
    `<html><head><meta name="svc-verify" content="other"></head></html>`,
    `<html><head><!-- <meta name="svc-verify" content="${id}"> --></head></html>`,
    `<html><head></head><body><meta name="svc-verify" content="${id}"></body></html>`,
    `<html><head><meta property="svc-verify" content="${id}"></head></html>`,
    `<html><head><script>var s = '<meta name="svc-verify" content="${id}">'</script></head></html>`,
    `<html><head><meta name="svc-verify" content="${id.toLowerCase()}"></head></html>`,
    '',
  ])('does not find it in %s', (html) => {
    expect(hasClaimMeta(html, id)).toBe(false);
  });
});

describe('parseProviderAnswer', () => {
  const provider = 'https://img.example/HPImageArchive.aspx?format=js&idx=0&n=1';
  it('reads the first image of a Bing-shaped answer, resolved on the provider origin', () => {
    const body = {
      images: [
        { url: '/th?id=OHR.Fox_1920x1080.jpg', copyright: 'Fox (© Someone)', title: 'A fox' },
        { url: '/x' },
      ],
    };
    expect(parseProviderAnswer(body, provider)).toEqual({
      sourceImageUrl: 'https://img.example/th?id=OHR.Fox_1920x1080.jpg',
      videoUrl: null,
      copyright: 'Fox (© Someone)',
      title: 'A fox',
    });
  });

  it.each([
    [{ images: [] }],
    [{}],
    ['not json'],
    [{ images: [{ url: 'http://169.254.169.254/latest/meta-data' }] }],
    [{ images: [{ url: '//evil.example/x.jpg' }] }],
  ])('refuses %j', (body) => {
    expect(parseProviderAnswer(body, provider)).toBeNull();
  });
});

describe('renderSitemap', () => {
  it('lists each page with 12 hreflang alternates plus x-default, XML-escaped', () => {
    const { xml, count } = renderSitemap('https://svc.example', [
      { path: '/' },
      { path: '/site/a&b<c>', lastModified: new Date('2026-05-01T00:00:00Z') },
    ]);
    expect(count).toBe(2);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('xmlns:xhtml="http://www.w3.org/1999/xhtml"');
    expect(xml).toContain('<loc>https://svc.example/site/a&amp;b&lt;c&gt;</loc>');
    expect(xml).toContain('<lastmod>2026-05-01T00:00:00.000Z</lastmod>');
    expect(xml).not.toMatch(/<c>/);
    for (const lang of LANGUAGE_CODES) {
      expect(xml).toContain(`hreflang="${lang}" href="https://svc.example/?lang=${lang}"`);
    }
    expect(xml).toContain('hreflang="x-default" href="https://svc.example/"');
    expect(xml.match(/<xhtml:link /g)).toHaveLength(2 * 13);
  });

  function* many(n: number) {
    for (let i = 0; i < n; i++) yield { path: `/site/${i}` };
  }

  it('stops at the URL limit', () => {
    const { xml, count } = renderSitemap('https://svc.example', many(10), {
      maxUrls: 3,
      maxBytes: SITEMAP_MAX_BYTES,
    });
    expect(count).toBe(3);
    expect(xml.match(/<url>/g)).toHaveLength(3);
    expect(xml.trimEnd().endsWith('</urlset>')).toBe(true);
  });

  it('keeps to the protocol limits of 50 000 URLs and 50 MiB by default', () => {
    const { xml, count } = renderSitemap('https://svc.example', many(SITEMAP_MAX_URLS + 10));
    expect(count).toBeLessThanOrEqual(SITEMAP_MAX_URLS);
    expect(count).toBeGreaterThan(30_000);
    expect(Buffer.byteLength(xml)).toBeLessThanOrEqual(SITEMAP_MAX_BYTES);
    expect(xml.match(/<url>/g)).toHaveLength(count);
  });

  it('escapes the five XML characters', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;',
    );
  });
});

describe('Idempotency-Key rules', () => {
  const invalid = {
    ok: false,
    reason: 'Invalid Idempotency-Key header: 1 to 255 printable ASCII characters',
  };
  it.each([
    [undefined, { ok: true, key: null }],
    [
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
      { ok: true, key: '8e03978e-40d5-43e8-bc93-6894a57f9324' },
    ],
    ['"8e03978e-40d5"', { ok: true, key: '8e03978e-40d5' }], // sf-string, as the draft writes it
    ['"a\\"b\\\\c"', { ok: true, key: 'a"b\\c' }], // escaped quote and backslash
    ['with spaces inside', { ok: true, key: 'with spaces inside' }],
    ['~!@#$%^&*()_+{}|:<>?', { ok: true, key: '~!@#$%^&*()_+{}|:<>?' }],
    ['x'.repeat(255), { ok: true, key: 'x'.repeat(255) }],
    ['x'.repeat(256), invalid],
    ['', invalid],
    ['""', invalid],
    ['"unterminated', invalid],
    ['"a"b"', invalid],
    ['ключ', invalid],
    ['clé', invalid],
    ['tab\there', invalid],
    ['bell\u0007', invalid],
    [['a', 'b'], invalid],
  ])('parses %#: %p', (header, expected) => {
    expect(parseIdempotencyKey(header as string | string[] | undefined)).toEqual(expected);
  });

  it('scopes keys to the user when logged in, else to the hashed IP', () => {
    expect(idempotencyScope({ userId: 'u1', ipHash: 'h' })).toBe('user:u1');
    expect(idempotencyScope({ userId: null, ipHash: 'h' })).toBe('ip:h');
  });

  it('fingerprints the normalised URL only', () => {
    expect(submissionFingerprint('https://a.example')).toBe(
      submissionFingerprint('https://a.example'),
    );
    expect(submissionFingerprint('https://a.example')).not.toBe(
      submissionFingerprint('https://b.example'),
    );
    expect(submissionFingerprint('https://a.example')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('replays the stored answer for the same request, refuses another one', () => {
    const stored = { fingerprint: 'f1', status: 201, body: '{"x":1}' };
    expect(replayDecision(stored, 'f1')).toEqual({ kind: 'replay', status: 201, body: '{"x":1}' });
    expect(replayDecision(stored, 'f2')).toEqual({ kind: 'mismatch' });
  });
});
