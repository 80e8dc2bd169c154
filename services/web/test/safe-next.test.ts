import { describe, expect, it } from '@jest/globals';
import { loginHref, safeNext } from '../app/lib/safe-next.js';

describe('safeNext', () => {
  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeNext('/me/bookmarks')).toBe('/me/bookmarks');
    expect(safeNext('/site/abc?lang=fr#chat')).toBe('/site/abc?lang=fr#chat');
    expect(safeNext('/apps?q=a%20b')).toBe('/apps?q=a%20b');
  });

  it('refuses anything that could leave the site', () => {
    for (const bad of [
      '//evil.example',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      'https://evil.example/',
      'http:evil.example',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,x',
      'evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      ' //evil.example',
      '%2F%2Fevil.example',
      '',
    ]) {
      expect(safeNext(bad)).toBe('/');
    }
  });

  it('falls back to / for missing values and the login page itself', () => {
    expect(safeNext(null)).toBe('/');
    expect(safeNext(undefined)).toBe('/');
    expect(safeNext('/login')).toBe('/');
    expect(safeNext('/login?next=/me')).toBe('/');
    expect(safeNext('/' + 'a'.repeat(3000))).toBe('/');
  });

  it('normalises dot segments without leaving the origin', () => {
    expect(safeNext('/a/../me')).toBe('/me');
    expect(safeNext('/..//evil.example')).toBe('/');
    expect(safeNext('/./%2e%2e//evil.example')).toBe('/');
  });
});

describe('loginHref', () => {
  it('encodes the way back', () => {
    expect(loginHref('/me/bookmarks')).toBe('/login?next=%2Fme%2Fbookmarks');
    expect(loginHref('//evil.example')).toBe('/login');
  });
});
