// Which of the 12 interface languages a reader gets: `?lang=`, then the cookie the
// language switcher sets, then Accept-Language, then English. Pure, shared by server and browser.
import { LANGUAGE_CODES } from '@svc/types/constants';

export type LanguageCode = (typeof LANGUAGE_CODES)[number];

export { LANGUAGE_CODES };

export const DEFAULT_LANGUAGE: LanguageCode = 'en';
/** The cookie the language switcher sets (a year; readable by the server only). */
export const LANGUAGE_COOKIE = 'lang';
export const LANGUAGE_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

const RTL: ReadonlySet<LanguageCode> = new Set(['ar']);

/** Each language's name in itself, for the switcher. */
export const LANGUAGE_NAMES: Record<LanguageCode, string> = {
  'zh-CN': '简体中文',
  'zh-HK': '繁體中文（香港）',
  'zh-TW': '繁體中文（台灣）',
  en: 'English',
  es: 'Español',
  ar: 'العربية',
  hi: 'हिन्दी',
  pt: 'Português',
  ja: '日本語',
  ko: '한국어',
  fr: 'Français',
  de: 'Deutsch',
};

export function isLanguage(value: unknown): value is LanguageCode {
  return typeof value === 'string' && (LANGUAGE_CODES as readonly string[]).includes(value);
}

export function directionOf(lang: LanguageCode): 'rtl' | 'ltr' {
  return RTL.has(lang) ? 'rtl' : 'ltr';
}

/**
 * The best interface language for one Accept-Language tag: exact (case-insensitive), then
 * the Chinese variants by script and region (zh-Hant-HK → zh-HK, zh-Hant/zh-MO → zh-TW or
 * zh-HK, zh-Hans/zh-SG/zh → zh-CN), then the primary subtag (pt-BR → pt).
 */
export function matchTag(tag: string): LanguageCode | undefined {
  const lower = tag.trim().toLowerCase();
  if (lower === '') return undefined;
  const exact = LANGUAGE_CODES.find((code) => code.toLowerCase() === lower);
  if (exact) return exact;
  const parts = lower.split('-');
  if (parts[0] === 'zh') {
    if (parts.includes('hk') || parts.includes('mo')) return 'zh-HK';
    if (parts.includes('tw') || parts.includes('hant')) return 'zh-TW';
    return 'zh-CN';
  }
  return LANGUAGE_CODES.find((code) => code === parts[0]);
}

/** Accept-Language parsed by quality (RFC 9110 §12.5.4); `*` and q=0 ignored. */
export function fromAcceptLanguage(header: string | null | undefined): LanguageCode | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.tag !== '*' && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const r of ranked) {
    const match = matchTag(r.tag);
    if (match) return match;
  }
  return undefined;
}

export interface LanguageSources {
  query: string | null;
  cookie: string | undefined;
  acceptLanguage: string | null;
}

/** The reader's language and whether `?lang=` chose it (then the cookie is set to it). */
export function pickLanguage(sources: LanguageSources): { lang: LanguageCode; fromQuery: boolean } {
  if (isLanguage(sources.query)) return { lang: sources.query, fromQuery: true };
  if (isLanguage(sources.cookie)) return { lang: sources.cookie, fromQuery: false };
  return { lang: fromAcceptLanguage(sources.acceptLanguage) ?? DEFAULT_LANGUAGE, fromQuery: false };
}
