// AI translation between the 12 languages (docs/api-reference.md, docs/decisions/020-translation.md).
import { z } from 'zod';
import { text } from './text-schema.js';
import { LanguageCode } from './common.js';

export const TRANSLATE_TEXT_MAX_LENGTH = 2000;
export const TRANSLATE_CACHE_SECONDS = 24 * 60 * 60;

/** Not trimmed: whitespace can be meaningful in the text to translate. */
export const TranslateBody = z.object({
  text: text(TRANSLATE_TEXT_MAX_LENGTH, { min: 1 }),
  targetLang: LanguageCode,
});
export type TranslateBody = z.infer<typeof TranslateBody>;

/**
 * `detectedLang` is a language code; it is usually one of the 12 but the input may be in
 * any language, so it is not restricted to them: another ISO 639-1 code (`it`, `ru`), or
 * `und` when it cannot be determined (text without letters, a single ambiguous word).
 */
export const TranslateResponse = z.object({
  translated: z.string(),
  detectedLang: z.string().min(1),
});
export type TranslateResponse = z.infer<typeof TranslateResponse>;
