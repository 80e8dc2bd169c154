import { describe, expect, it } from '@jest/globals';
import {
  directionOf,
  fromAcceptLanguage,
  LANGUAGE_CODES,
  LANGUAGE_NAMES,
  matchTag,
  pickLanguage,
} from '../app/i18n/languages';

describe('choosing the reader’s language', () => {
  it('?lang= wins over the cookie and Accept-Language, and asks for the cookie to be set', () => {
    expect(pickLanguage({ query: 'fr', cookie: 'de', acceptLanguage: 'ja' })).toEqual({ lang: 'fr', fromQuery: true });
  });

  it('then the cookie, then Accept-Language, then English', () => {
    expect(pickLanguage({ query: null, cookie: 'de', acceptLanguage: 'ja' })).toEqual({ lang: 'de', fromQuery: false });
    expect(pickLanguage({ query: null, cookie: undefined, acceptLanguage: 'ja,en;q=0.5' }).lang).toBe('ja');
    expect(pickLanguage({ query: null, cookie: undefined, acceptLanguage: null }).lang).toBe('en');
  });

  it('ignores values that are not one of the 12 languages', () => {
    expect(pickLanguage({ query: 'xx', cookie: '<script>', acceptLanguage: 'tlh' })).toEqual({ lang: 'en', fromQuery: false });
  });

  it('reads Accept-Language by quality, skipping * and q=0', () => {
    expect(fromAcceptLanguage('de;q=0.2, fr;q=0.9, *;q=1')).toBe('fr');
    expect(fromAcceptLanguage('es;q=0, pt-BR;q=0.8')).toBe('pt');
    expect(fromAcceptLanguage('sv, nb')).toBeUndefined();
  });

  it('maps Chinese tags by region and script', () => {
    expect(matchTag('zh-Hant-HK')).toBe('zh-HK');
    expect(matchTag('zh-MO')).toBe('zh-HK');
    expect(matchTag('zh-TW')).toBe('zh-TW');
    expect(matchTag('zh-Hant')).toBe('zh-TW');
    expect(matchTag('zh-Hans-SG')).toBe('zh-CN');
    expect(matchTag('ZH')).toBe('zh-CN');
  });

  it('writes Arabic right to left, the others left to right', () => {
    expect(LANGUAGE_CODES.filter((l) => directionOf(l) === 'rtl')).toEqual(['ar']);
  });

  it('names each of the 12 languages in itself', () => {
    expect(Object.keys(LANGUAGE_NAMES).sort()).toEqual([...LANGUAGE_CODES].sort());
  });
});
