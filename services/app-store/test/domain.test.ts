// Pure domain rules: report threshold, listing SQL, API keys, icon sanitising, updates,
// moderation and withdrawal.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import { reachesBlockThreshold, reportOutcome } from '../src/domain/report-threshold.js';
import {
  ALREADY_BLOCKED,
  NOT_BLOCKED,
  WITHDRAWN_BY_AUTHOR,
  changesListing,
  decideModeration,
} from '../src/domain/moderation.js';
import {
  DELETED_AFTER_RETENTION,
  DELETED_BY_AUTHOR,
  SYSTEM_ACTOR,
  actorForAuthor,
  deletionEntry,
  moderatorEntry,
  withdrawalEntry,
} from '../src/domain/audit-entry.js';
import {
  WITHDRAWAL_RETENTION_MS,
  decideWithdrawal,
  leavesListing,
  purgeAt,
} from '../src/domain/withdrawal.js';
import {
  listingCountQuery,
  listingPageQuery,
  listingTotalKey,
  listingWhere,
} from '../src/domain/listing-query.js';
import {
  API_KEY_DISPLAY_LENGTH,
  generateApiKey,
  hashApiKey,
  needsLastUsedWrite,
  parseBearer,
} from '../src/domain/api-key.js';
import { iconSvgProblem, UNFINISHED } from '../src/domain/icon-svg.js';
import {
  InvalidIconSvg,
  appChanges,
  changesListingMembership,
  uniqueTags,
} from '../src/domain/app-update.js';
import { avatarUrl } from '../src/domain/avatar.js';

describe('report threshold', () => {
  it('blocks at the 5th distinct reporter, not before', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => reachesBlockThreshold(n))).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
    ]);
    expect(reachesBlockThreshold(2, 2)).toBe(true);
  });

  it('says how many more reports are needed, then that the app was blocked', () => {
    expect(reportOutcome(1)).toEqual({
      report_count: 1,
      blocked: false,
      message: 'Report recorded. 4 more reports needed to trigger the automatic block.',
    });
    expect(reportOutcome(4).message).toBe(
      'Report recorded. 1 more report needed to trigger the automatic block.',
    );
    expect(reportOutcome(5)).toEqual({
      report_count: 5,
      blocked: true,
      message: 'Report recorded. The app reached 5 reports and was automatically blocked.',
    });
  });
});

describe('listing query', () => {
  it('always filters approved apps and orders stably', () => {
    const q = listingPageQuery({}, 50, 0);
    expect(q.sql).toContain(
      `WHERE status = 'approved' ORDER BY downloads DESC, created_at DESC, id LIMIT $1 OFFSET $2`,
    );
    expect(q.params).toEqual([50, 0]);
  });

  it('adds each filter as a bound parameter, never inlined', () => {
    const q = listingPageQuery(
      { category: 'games', app_type: 'pwa', q: " x'; DROP TABLE apps; -- " },
      10,
      20,
    );
    expect(q.sql).toContain(
      'category = $1::app_category AND app_type = $2::app_type AND search_document @@ svc_search_query($3)',
    );
    expect(q.sql).toContain('LIMIT $4 OFFSET $5');
    expect(q.sql).not.toContain('DROP');
    expect(q.params).toEqual(['games', 'pwa', "x'; DROP TABLE apps; --", 10, 20]);
  });

  it('treats a blank q as no search; the count uses the same filter', () => {
    expect(listingWhere({ q: '   ' })).toEqual({ sql: `status = 'approved'`, params: [] });
    const c = listingCountQuery({ app_type: 'dapp', q: 'wallet' });
    expect(c.sql).toBe(
      `SELECT count(*)::int AS total FROM apps WHERE status = 'approved' AND app_type = $1::app_type AND search_document @@ svc_search_query($2)`,
    );
    expect(c.params).toEqual(['dapp', 'wallet']);
  });

  it('keys the totals cache by the normalised filter', () => {
    expect(listingTotalKey({ q: ' Tool ' })).toBe(listingTotalKey({ q: 'tool' }));
    expect(listingTotalKey({ q: '' })).toBe(listingTotalKey({}));
    expect(listingTotalKey({ category: 'games' })).not.toBe(listingTotalKey({ app_type: 'web' }));
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        if (a.trim().toLowerCase() !== b.trim().toLowerCase())
          expect(listingTotalKey({ q: a })).not.toBe(listingTotalKey({ q: b }));
      }),
    );
  });
});

describe('API keys', () => {
  it('generates svc_live_ keys of 256 random bits with a short display prefix and their SHA-256', () => {
    const k = generateApiKey();
    expect(k.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe(k.key.slice(0, API_KEY_DISPLAY_LENGTH));
    expect(k.hash).toBe(hashApiKey(k.key));
    expect(k.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(generateApiKey().key).not.toBe(k.key);
    expect(generateApiKey(() => Buffer.alloc(32)).key).toBe(`svc_live_${'A'.repeat(43)}`);
  });

  it('reads only well-formed Bearer keys', () => {
    expect(parseBearer(undefined)).toEqual({ kind: 'none' });
    expect(parseBearer('')).toEqual({ kind: 'none' });
    expect(parseBearer('Bearer svc_live_abc')).toEqual({ kind: 'key', key: 'svc_live_abc' });
    expect(parseBearer('bearer   svc_live_abc')).toEqual({ kind: 'key', key: 'svc_live_abc' });
    for (const bad of [
      'Bearer',
      'Bearer ',
      'Basic abc',
      'Bearer abc',
      'Bearer svc_live_',
      'Bearer svc_live_a b',
      `Bearer svc_live_${'a'.repeat(300)}`,
    ]) {
      expect(parseBearer(bad)).toEqual({ kind: 'malformed' });
    }
  });

  it('writes last_used_at at most once per minute', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(needsLastUsedWrite(null, now)).toBe(true);
    expect(needsLastUsedWrite(new Date('2026-11-22T09:59:30Z'), now)).toBe(false);
    expect(needsLastUsedWrite(new Date('2026-11-22T09:59:00Z'), now)).toBe(true);
  });
});

describe('icon_svg checking', () => {
  it('accepts a harmless icon as it is (nothing to rewrite)', () => {
    for (const ok of [
      '<svg viewBox="0 0 2 2"><path d="M0 0h2v2z" fill="#f00"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" role="img"><title>t</title>' +
        '<defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs><rect fill="url(#g)"/><use href="#g"/></svg>',
      '\n<!-- icon -->\n<svg><style>rect { fill: url(#g) }</style><rect/></svg>\n',
    ])
      expect([ok, iconSvgProblem(ok)]).toEqual([ok, null]);
  });

  it.each([
    ['<svg onload="x()"></svg>', 'icon_svg is unsafe: event handler attribute onload on <svg>'],
    ['<svg><g><script>x()</script></g></svg>', 'icon_svg is unsafe: <script> elements are not allowed'],
    ['<svg><use xlink:href="https://e.example/s.svg#a"/></svg>', 'icon_svg is unsafe: external reference in xlink:href on <use> (only #id references are allowed)'],
    ['<svg><rect fill="url(http://e.example/p)"/></svg>', 'icon_svg is unsafe: external reference in fill on <rect> (only url(#id) is allowed)'],
    ['<svg><image href="data:image/png;base64,AAAA"/></svg>', 'icon_svg is unsafe: external reference in href on <image> (only #id references are allowed)'],
    ['<svg><a href="javascript:x()"><rect/></a></svg>', 'icon_svg is unsafe: external reference in href on <a> (only #id references are allowed)'],
    ['<svg><style>@import "https://e.example/a.css";</style></svg>', 'icon_svg is unsafe: <style> with an external reference (@import or url() other than url(#id))'],
    ['<svg><foreignObject><div>x</div></foreignObject></svg>', 'icon_svg is unsafe: <foreignObject> elements are not allowed'],
    ['<svg><a><set attributeName="href" to="javascript:x()"/></a></svg>', 'icon_svg is unsafe: <set> animating href'],
  ])('refuses %s, naming the problem', (svg, problem) => {
    expect(iconSvgProblem(svg)).toBe(problem);
  });

  // A parser drops a tag left open at the end of its input; the page an icon is inlined into
  // would finish it (found by the property below: `<svg><A onload="a()"`).
  it('refuses markup that ends inside a tag, an attribute, a comment or CDATA', () => {
    for (const unfinished of [
      '<svg><A onload="a()"',
      '<svg></svg><a onload="a()"',
      '<svg><a onload="a()',
      '<svg><a onload',
      '<svg><a ',
      '<svg><a',
      '<svg></',
      '<svg><!-- note',
      '<svg><![CDATA[ x',
      '<svg><title><i></i><!--',
    ])
      expect([unfinished, iconSvgProblem(unfinished)]).toEqual([unfinished, UNFINISHED]);
  });

  it('accepts finished markup whose elements the parser closes itself', () => {
    for (const ok of ['<svg><g><rect/>', '<svg><title>t', '<svg><style>rect { fill: #f00 }', '<svg></svg>\n'])
      expect([ok, iconSvgProblem(ok)]).toEqual([ok, null]);
  });

  it('refuses what is not a single <svg> element', () => {
    for (const bad of [
      '',
      'text',
      'text<svg></svg>',
      '<div></div>',
      '<svg></svg><svg></svg>',
      '<script>1</script>',
      '<math></math>',
    ]) {
      expect(iconSvgProblem(bad)).toBe('icon_svg must be an SVG image (a single <svg> element)');
    }
  });

  it('never lets a script or handler through, whatever the input (property)', () => {
    const piece = fc.constantFrom(
      '<svg>',
      '</svg>',
      '<script>',
      '</script>',
      ' onload="a()"',
      '<a href="javascript:x">',
      '<g>',
      '</g>',
      '<![CDATA[',
      ']]>',
      '<!--',
      '-->',
      '<use href="http://x.example/a#b"/>',
      '"',
      "'",
      '<style>',
      '</style>',
      'url(http://x.example)',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, fc.string({ maxLength: 10 })), { maxLength: 20 }),
        (parts) => {
          const out = parts.join('');
          if (iconSvgProblem(out) === null) {
            // Text content is inert; check what a browser would act on: elements and attributes.
            const doc = new JSDOM(`<body>${out}</body>`).window.document;
            for (const el of Array.from(doc.body.querySelectorAll('*'))) {
              const name = el.localName.toLowerCase();
              expect(['script', 'image', 'foreignobject', 'iframe']).not.toContain(name);
              // <style> is allowed (the icon is shown as an image), but never reaching out.
              if (name === 'style') expect(el.textContent).not.toMatch(/x\.example|@import/i);
              for (const attr of Array.from(el.attributes)) {
                expect(attr.name).not.toMatch(/^on/i);
                expect(attr.value).not.toMatch(/javascript:|x\.example/i);
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('app updates', () => {
  it('maps the body to columns, de-duplicating tags and keeping the icon as sent', () => {
    const c = appChanges({
      name: 'N',
      tech_tags: ['Vue', 'vue', 'Go'],
      icon_svg: '<svg><rect/></svg>',
      chain: null,
    });
    expect(c).toEqual({
      name: 'N',
      techTags: ['Vue', 'Go'],
      iconSvg: '<svg><rect/></svg>',
      chain: null,
    });
    expect(() => appChanges({ icon_svg: '<svg onload="x"></svg>' })).toThrow(
      'icon_svg is unsafe: event handler attribute onload on <svg>',
    );
    expect(changesListingMembership(c)).toBe(true);
    expect(changesListingMembership(appChanges({ icon_gradient_from: '#000000' }))).toBe(false);
    expect(() => appChanges({ icon_svg: '<p>no</p>' })).toThrow(InvalidIconSvg);
    expect(uniqueTags(['a', 'A', 'b', 'a'])).toEqual(['a', 'b']);
  });
});

describe('avatar', () => {
  it('is a Gravatar identicon URL of the normalised email’s SHA-256', () => {
    expect(avatarUrl(' Alice@Example.com ')).toBe(avatarUrl('alice@example.com'));
    expect(avatarUrl('alice@example.com')).toMatch(
      /^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=identicon$/,
    );
  });
});

describe('moderation decisions (docs/decisions/009-moderation-audit-log.md)', () => {
  it('restores only a blocked app, resolving its reports', () => {
    expect(decideModeration('restore', 'blocked')).toEqual({
      kind: 'apply',
      after: 'approved',
      resolvesReports: true,
      audit: 'app.restored',
    });
    expect(decideModeration('restore', 'approved')).toEqual({
      kind: 'conflict',
      message: NOT_BLOCKED,
    });
  });
  it('blocks only an app that is not blocked, keeping its reports open', () => {
    expect(decideModeration('block', 'approved')).toEqual({
      kind: 'apply',
      after: 'blocked',
      resolvesReports: false,
      audit: 'app.blocked',
    });
    expect(decideModeration('block', 'blocked')).toEqual({
      kind: 'conflict',
      message: ALREADY_BLOCKED,
    });
  });
  it('neither blocks nor restores an app its author withdrew', () => {
    expect(decideModeration('block', 'withdrawn')).toEqual({
      kind: 'conflict',
      message: WITHDRAWN_BY_AUTHOR,
    });
    expect(decideModeration('restore', 'withdrawn')).toEqual({
      kind: 'conflict',
      message: NOT_BLOCKED,
    });
  });
  it('dismisses in any status, resolving the reports and keeping the status', () => {
    for (const status of ['approved', 'blocked'] as const)
      expect(decideModeration('dismiss', status)).toEqual({
        kind: 'apply',
        after: status,
        resolvesReports: true,
        audit: 'reports.dismissed',
      });
  });
  it('changes the listing only when the status changes', () => {
    expect(changesListing('approved', 'blocked')).toBe(true);
    expect(changesListing('blocked', 'blocked')).toBe(false);
  });
  it("builds a moderator's audit entry: the reason given, or the dismissed reports summarised", () => {
    const base = {
      actor: 'u_mod',
      appId: 'app_1',
      dismissed: { spam: 2, other: 1 },
      before: { status: 'approved', openReports: 3 },
      after: { status: 'approved', openReports: 0 },
    };
    expect(moderatorEntry({ ...base, action: 'reports.dismissed', reason: undefined })).toEqual({
      actor: 'u_mod',
      action: 'reports.dismissed',
      targetType: 'app',
      targetId: 'app_1',
      reason: '3 reports: 2 spam, 1 other',
      before: { status: 'approved', open_reports: 3 },
      after: { status: 'approved', open_reports: 0 },
    });
    expect(moderatorEntry({ ...base, action: 'app.blocked', reason: ' phishing ' }).reason).toBe(
      'phishing',
    );
  });
});

describe('withdrawal (docs/decisions/033-withdraw-an-app.md)', () => {
  const author = 'u_author';
  it('lets only the author withdraw; others get 403 for a listed app, 404 otherwise', () => {
    expect(decideWithdrawal(undefined, author, false)).toEqual({ kind: 'not-found' });
    expect(decideWithdrawal({ authorId: author, status: 'approved' }, 'u_other', false)).toEqual({
      kind: 'forbidden',
    });
    for (const status of ['blocked', 'withdrawn'] as const)
      expect(decideWithdrawal({ authorId: author, status }, 'u_other', true)).toEqual({
        kind: 'not-found',
      });
  });
  it('withdraws a live app (blocked too), again changes nothing, permanent deletes for good', () => {
    for (const status of ['approved', 'blocked'] as const) {
      expect(decideWithdrawal({ authorId: author, status }, author, false)).toEqual({
        kind: 'apply',
        withdraw: true,
        deleteForGood: false,
      });
      expect(decideWithdrawal({ authorId: author, status }, author, true)).toEqual({
        kind: 'apply',
        withdraw: true,
        deleteForGood: true,
      });
    }
    expect(decideWithdrawal({ authorId: author, status: 'withdrawn' }, author, false)).toEqual({
      kind: 'apply',
      withdraw: false,
      deleteForGood: false,
    });
    expect(decideWithdrawal({ authorId: author, status: 'withdrawn' }, author, true)).toEqual({
      kind: 'apply',
      withdraw: false,
      deleteForGood: true,
    });
  });
  it('keeps a withdrawn app the retention days of the catalogue; only a listed one leaves the listing', () => {
    expect(WITHDRAWAL_RETENTION_MS).toBe(30 * 86_400_000);
    expect(purgeAt(new Date('2026-11-24T10:00:00.000Z')).toISOString()).toBe(
      '2026-12-24T10:00:00.000Z',
    );
    expect(leavesListing('approved')).toBe(true);
    expect(leavesListing('blocked')).toBe(false);
    expect(leavesListing('withdrawn')).toBe(false);
  });
  it('writes the withdrawal by its author and the deletion by the author or the sweep', () => {
    expect(
      withdrawalEntry({
        authorId: author,
        appId: 'app_1',
        before: 'blocked',
        purgeAt: new Date('2026-12-24T10:00:00.000Z'),
      }),
    ).toEqual({
      actor: author,
      action: 'app.withdrawn',
      targetType: 'app',
      targetId: 'app_1',
      reason: '',
      before: { status: 'blocked' },
      after: { status: 'withdrawn', purge_at: '2026-12-24T10:00:00.000Z' },
    });
    expect(deletionEntry({ actor: author, appId: 'app_1' })).toEqual({
      actor: author,
      action: 'app.deleted',
      targetType: 'app',
      targetId: 'app_1',
      reason: DELETED_BY_AUTHOR,
      before: { status: 'withdrawn' },
      after: null,
    });
    expect(deletionEntry({ actor: SYSTEM_ACTOR, appId: 'app_1' }).reason).toBe(
      DELETED_AFTER_RETENTION,
    );
    expect(DELETED_AFTER_RETENTION).toBe('deleted for good 30 days after its withdrawal');
    // The author's history shows their own withdrawal as theirs.
    expect(actorForAuthor(author, author)).toBe('author');
  });
});
