// One translation request, top to bottom: detect the input language; text already in the
// target language comes back unchanged (no AI, no Redis); then the cache; then the AI,
// whose answer is cached. Route-independent, so tests and the route share it.
import { ERROR_MESSAGES, type TranslateBody, type TranslateResponse } from '@svc/types';
import { HttpError, type Logger } from '@svc/service-kit';
import { TranslationFailed, type Translator } from '../clients/ai-translator.js';
import { detectLanguage } from '../domain/detection/detect-language.js';
import { isAlreadyInTarget } from '../domain/same-language.js';
import type { TranslationCache } from '../store/translation-cache.js';

export const NO_PROVIDER_MESSAGE = 'Translation is not available: no AI provider is configured';

export type TranslateText = (body: TranslateBody) => Promise<TranslateResponse>;

export function createTranslateText(deps: {
  /** Undefined when no AI provider is configured (ANTHROPIC_API_KEY unset). */
  translator: Translator | undefined;
  cache: TranslationCache;
  logger: Logger;
}): TranslateText {
  const { translator, cache, logger } = deps;
  return async ({ text, targetLang }) => {
    const detection = detectLanguage(text);
    if (isAlreadyInTarget(detection, targetLang))
      return { translated: text, detectedLang: detection.lang };

    const cached = await cache.get(text, targetLang);
    if (cached) return cached;

    if (!translator) throw new HttpError(503, NO_PROVIDER_MESSAGE);
    let translated: string;
    try {
      translated = await translator.translate(text, targetLang);
    } catch (err) {
      if (!(err instanceof TranslationFailed)) throw err;
      logger.error(
        { err, cause: (err.cause as Error | undefined)?.message, targetLang },
        'translation failed',
      );
      throw new HttpError(500, ERROR_MESSAGES.translationFailed);
    }
    const result = { translated, detectedLang: detection.lang };
    await cache.set(text, targetLang, result);
    return result;
  };
}
