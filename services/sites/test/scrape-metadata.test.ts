// The scraper's pure rules: which metadata is kept (and how it is bounded), what
// metascraper reads from a page, and which fetch failures are retried.
import { describe, expect, it } from '@jest/globals';
import { OutboundBlockedError, OutboundFetchError, checkPublicUrl } from '@svc/safe-fetch';
import { extractMetadata } from '../src/domain/scrape/extract-metadata.js';
import { classifyFetchError, classifyStatus } from '../src/domain/scrape/fetch-outcome.js';
import {
  MAX_DESCRIPTION_CHARS,
  MAX_TITLE_CHARS,
  toPageMetadata,
} from '../src/domain/scrape/page-metadata.js';

const urlPolicy = (url: string) => checkPublicUrl(url);
const opts = {
  siteType: 'website' as const,
  fallbackTitle: 'example.com',
  pageUrl: 'https://example.com/a/b',
  urlPolicy,
};

describe('toPageMetadata', () => {
  it('keeps the host name as title when the page has none, and guesses /favicon.ico', () => {
    expect(toPageMetadata({}, opts)).toEqual({
      title: 'example.com',
      description: '',
      faviconUrl: 'https://example.com/favicon.ico',
      ogImageUrl: null,
    });
  });

  it('collapses whitespace and strips control characters', () => {
    const meta = toPageMetadata(
      { title: '  Hello\n\t  world\u0000 ', description: 'a\r\nb' },
      opts,
    );
    expect(meta.title).toBe('Hello world');
    expect(meta.description).toBe('a b');
  });

  it('clips long text at code points, with an ellipsis', () => {
    const meta = toPageMetadata({ title: '😀'.repeat(500), description: '字'.repeat(5000) }, opts);
    expect(Array.from(meta.title)).toHaveLength(MAX_TITLE_CHARS);
    expect(meta.title.endsWith('…')).toBe(true);
    expect(meta.title).not.toMatch(/[\ud800-\udbff]…$/); // no half surrogate pair
    expect(Array.from(meta.description)).toHaveLength(MAX_DESCRIPTION_CHARS);
  });

  it('resolves relative image URLs and refuses non-http(s) ones', () => {
    expect(
      toPageMetadata({ logo: '/i.png', image: '//cdn.example.com/x.jpg' }, opts),
    ).toMatchObject({
      faviconUrl: 'https://example.com/i.png',
      ogImageUrl: 'https://cdn.example.com/x.jpg',
    });
    expect(
      toPageMetadata({ logo: 'javascript:alert(1)', image: 'data:image/png;base64,AA' }, opts),
    ).toMatchObject({
      faviconUrl: 'https://example.com/favicon.ico',
      ogImageUrl: null,
    });
    expect(
      toPageMetadata({ image: `https://example.com/${'a'.repeat(3000)}` }, opts).ogImageUrl,
    ).toBeNull();
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/iam.png',
    'http://127.0.0.1/icon.png',
    'http://2130706433/icon.png',
    'http://[::1]/icon.png',
    'http://[fd00::1]/icon.png',
    'http://10.0.0.1/icon.png',
    'http://localhost:8080/icon.png',
    'http://printer.local/icon.png',
    'http://metadata.google.internal/icon.png',
    'http://intranet/icon.png',
  ])('keeps no icon or image at a private destination: %s', (bad) => {
    expect(toPageMetadata({ logo: bad, image: bad }, opts)).toMatchObject({
      faviconUrl: 'https://example.com/favicon.ico', // the page's own origin instead
      ogImageUrl: null,
    });
    // A profile falls back from a private og:image to the generic image, if that is public.
    expect(
      toPageMetadata(
        { ogImage: bad, image: 'https://cdn.example.com/p.png' },
        { ...opts, siteType: 'profile' },
      ).ogImageUrl,
    ).toBe('https://cdn.example.com/p.png');
  });

  it('keeps no default /favicon.ico either when the page itself is private (allow-listed fetch)', () => {
    expect(
      toPageMetadata({}, { ...opts, pageUrl: 'http://127.0.0.1:4567/' }).faviconUrl,
    ).toBeNull();
    // With the fetcher's allow-list, the same page keeps it (tests' loopback sites).
    expect(
      toPageMetadata(
        {},
        {
          ...opts,
          pageUrl: 'http://127.0.0.1:4567/',
          urlPolicy: (u) => checkPublicUrl(u, { allowHosts: ['127.0.0.1:4567'] }),
        },
      ).faviconUrl,
    ).toBe('http://127.0.0.1:4567/favicon.ico');
  });

  it('takes a profile’s avatar and bio from Open Graph first', () => {
    const raw = {
      description: 'generic',
      image: 'https://e.com/generic.png',
      ogDescription: 'my bio',
      ogImage: 'https://e.com/me.png',
    };
    expect(toPageMetadata(raw, { ...opts, siteType: 'profile' })).toMatchObject({
      description: 'my bio',
      ogImageUrl: 'https://e.com/me.png',
    });
    expect(toPageMetadata(raw, opts)).toMatchObject({
      description: 'generic',
      ogImageUrl: 'https://e.com/generic.png',
    });
    expect(
      toPageMetadata({ description: 'generic' }, { ...opts, siteType: 'profile' }).description,
    ).toBe('generic');
  });
});

describe('extractMetadata (metascraper)', () => {
  it('reads title, description, the biggest declared icon and og:image', async () => {
    const html = `<html><head><title>Site title</title>
      <meta name="description" content="What it does">
      <link rel="icon" href="/small.ico" sizes="16x16">
      <link rel="apple-touch-icon" href="/apple-180.png" sizes="180x180">
      <meta property="og:image" content="/card.jpg"></head><body><h1>x</h1></body></html>`;
    expect(
      await extractMetadata({
        html,
        url: 'https://example.com/page',
        siteType: 'website',
        fallbackTitle: 'example.com',
        urlPolicy,
      }),
    ).toEqual({
      title: 'Site title',
      description: 'What it does',
      faviconUrl: 'https://example.com/apple-180.png',
      ogImageUrl: 'https://example.com/card.jpg',
    });
  });

  it('copes with an empty or non-HTML body', async () => {
    const meta = await extractMetadata({
      html: '',
      url: 'https://example.com/',
      siteType: 'website',
      fallbackTitle: 'example.com',
      urlPolicy,
    });
    expect(meta.title).toBe('example.com');
    const junk = await extractMetadata({
      html: '\u0000<<<>>>&&&',
      url: 'https://example.com/',
      siteType: 'profile',
      fallbackTitle: 'example.com',
      urlPolicy,
    });
    expect(junk.title).toBe('example.com');
  });
});

describe('fetch outcome', () => {
  it.each([
    [200, 'page'],
    [204, 'page'],
    [404, 'give_up'],
    [403, 'give_up'],
    [410, 'give_up'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
  ])('HTTP %i → %s', (status, kind) => {
    expect(classifyStatus(status).kind).toBe(kind);
  });

  it('refusals and redirect loops are final, timeouts and network errors retried', () => {
    expect(classifyFetchError(new OutboundBlockedError('no', 'http://10.0.0.1/')).kind).toBe(
      'give_up',
    );
    expect(classifyFetchError(new OutboundFetchError('loop', 'u', 'too_many_redirects')).kind).toBe(
      'give_up',
    );
    expect(classifyFetchError(new OutboundFetchError('slow', 'u', 'timeout')).kind).toBe('retry');
    expect(classifyFetchError(new OutboundFetchError('reset', 'u', 'network')).kind).toBe('retry');
    expect(() => classifyFetchError(new TypeError('bug'))).toThrow(TypeError);
  });
});
