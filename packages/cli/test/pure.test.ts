// Small pure rules: site URL normalisation (as the service does it), table widths, the
// session file location.
import { describe, expect, it } from '@jest/globals';
import { normaliseSiteUrl as serviceNormalise } from '@svc/types';
import { isSiteId, normaliseSiteUrl, siteHost } from '../src/site-lookup.js';
import { displayWidth, renderTable, truncate } from '../src/table.js';
import { configDir, sessionFile } from '../src/session-store.js';
import { UsageError } from '../src/exit-codes.js';

describe('normaliseSiteUrl', () => {
  it('follows docs/decisions/005-sites.md', () => {
    expect(normaliseSiteUrl('HTTPS://Example.COM:443/#x')).toBe('https://example.com');
    expect(normaliseSiteUrl('http://example.com:80/a/?utm_source=x&id=1&fbclid=y')).toBe(
      'http://example.com/a/?id=1',
    );
    expect(normaliseSiteUrl('https://example.com:8443/p')).toBe('https://example.com:8443/p');
  });

  // The sites service stores what @svc/types' normaliser gives; svc must find it by the same
  // spelling (its old copy kept mc_cid/msclkid/igshid, re-encoded queries, kept `host.`).
  it.each([
    ['HTTPS://Example.COM:443/#x', 'https://example.com'],
    ['https://example.com/?q=a%20b&mc_cid=1&msclkid=2', 'https://example.com?q=a%20b'],
    ['https://example.com/s?q=a+b&x=%7e&UTM_Medium=m', 'https://example.com/s?q=a+b&x=%7e'],
    ['https://Example.com./path/', 'https://example.com/path/'],
    ['  example.com/page?ref=1  ', 'https://example.com/page?ref=1'],
    ['https://example.com/?', 'https://example.com'],
    ['https://www.example.com/a?igshid=z&yclid=1&dclid=2&gclid=3', 'https://www.example.com/a'],
    ['https://example.com/a?b&utm_x&c=', 'https://example.com/a?b&c='],
    ['https://münchen.example/straße', 'https://xn--mnchen-3ya.example/stra%C3%9Fe'],
    ['http://[2001:db8::1]:80/x', 'http://[2001:db8::1]/x'],
  ])('%s normalises as the sites service stores it', (input, stored) => {
    expect(serviceNormalise(input)).toMatchObject({ ok: true, url: stored });
    expect(normaliseSiteUrl(input)).toBe(stored);
  });

  it('refuses what is not an http(s) URL, saying an id works too', () => {
    expect(() => normaliseSiteUrl('abc123')).toThrow(UsageError);
    expect(() => normaliseSiteUrl('abc123')).toThrow(/takes a site id or the site's URL/);
    expect(() => normaliseSiteUrl('ftp://example.com')).toThrow(/http/);
  });

  it('tells a site id from a URL', () => {
    for (const id of ['s1', 'V1StGXR8Z5jdHi6BmyTab', 'legacy_id-1', 'abc123'])
      expect(isSiteId(id)).toBe(true);
    for (const url of [
      'example.com',
      'https://example.com',
      'example.com/a',
      'localhost:8080',
      '[::1]',
      '',
      'a'.repeat(129),
    ])
      expect(isSiteId(url)).toBe(false);
  });

  it('searches by the host without www', () => {
    expect(siteHost('https://www.example.com/a')).toBe('example.com');
  });
});

describe('tables', () => {
  it('counts wide characters as two columns', () => {
    expect(displayWidth('工具')).toBe(4);
    expect(displayWidth('abc')).toBe(3);
    expect(truncate('abcdefgh', 5)).toBe('abcd…');
    expect(truncate('工具工具', 5)).toBe('工具…');
  });

  it('pads columns and right-aligns numbers', () => {
    const out = renderTable(
      [
        { a: 'x', n: 5 },
        { a: '社交', n: 1234 },
      ],
      [
        { header: 'NAME', value: (r) => r.a },
        { header: 'N', value: (r) => r.n, align: 'right' },
      ],
    );
    expect(out.split('\n')).toEqual(['NAME     N', 'x        5', '社交  1234']);
  });
});

describe('session file', () => {
  it('uses XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x/conf', HOME: '/home/u' })).toBe('/x/conf/svc');
    expect(sessionFile({ HOME: '/home/u' })).toBe('/home/u/.config/svc/session.json');
    // A relative XDG_CONFIG_HOME is invalid per the spec and ignored.
    expect(configDir({ XDG_CONFIG_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.config/svc');
  });
});
