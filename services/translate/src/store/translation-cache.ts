// Redis cache of identical translation requests (docs/decisions/020-translation.md: 24 h).
//
// Key: `<prefix>translate:v1:<sha256(targetLang + "\n" + text)>`; value: JSON
// `{ translated, detectedLang }`; TTL TRANSLATE_CACHE_SECONDS (24 h) from the first
// translation. Hashing keeps keys short and user text out of key names. Bump `v1` when the
// prompt or the model changes what a translation looks like.
//
// The cache is an optimisation, so Redis being down never fails a translation: reads and
// writes are bounded by a short timeout and any error is logged and treated as a miss.
import { createHash } from 'node:crypto';
import { TRANSLATE_CACHE_SECONDS, type LanguageCode } from '@svc/types';
import type { Logger, Redis } from '@svc/service-kit';

export interface CachedTranslation {
  translated: string;
  detectedLang: string;
}

export interface TranslationCache {
  get(text: string, target: LanguageCode): Promise<CachedTranslation | undefined>;
  set(text: string, target: LanguageCode, value: CachedTranslation): Promise<void>;
}

export function translationCacheKey(prefix: string, text: string, target: LanguageCode): string {
  const hash = createHash('sha256').update(`${target}\n${text}`).digest('hex');
  return `${prefix}translate:v1:${hash}`;
}

export function createTranslationCache(deps: {
  redis: Redis;
  prefix: string;
  logger: Logger;
  /**
   * Longest wait for Redis before treating the cache as absent (a connected but silent
   * Redis; a disconnected client fails at once). Generous, because a miss costs an AI
   * call, and a stalled event loop under load can make a short timer fire before a reply
   * that has already arrived is read.
   */
  timeoutMs?: number;
  ttlSeconds?: number;
}): TranslationCache {
  const { redis, prefix, logger } = deps;
  const timeoutMs = deps.timeoutMs ?? 1000;
  const ttl = deps.ttlSeconds ?? TRANSLATE_CACHE_SECONDS;
  let warned = false;
  const skip = (err: unknown): undefined => {
    // One warning per outage, not one per request.
    if (!warned)
      logger.warn({ err: (err as Error)?.message }, 'translation cache unavailable; skipping it');
    warned = true;
    return undefined;
  };
  const ok = () => {
    if (warned) logger.info('translation cache available again');
    warned = false;
  };

  return {
    async get(text, target) {
      try {
        const raw = await withTimeout(
          redis.get(translationCacheKey(prefix, text, target)),
          timeoutMs,
        );
        ok();
        if (raw === null) return undefined;
        const value = JSON.parse(raw) as Partial<CachedTranslation>;
        if (typeof value.translated !== 'string' || typeof value.detectedLang !== 'string')
          return undefined;
        return { translated: value.translated, detectedLang: value.detectedLang };
      } catch (err) {
        return skip(err);
      }
    },
    async set(text, target, value) {
      try {
        await withTimeout(
          redis.set(translationCacheKey(prefix, text, target), JSON.stringify(value), 'EX', ttl),
          timeoutMs,
        );
        ok();
      } catch (err) {
        skip(err);
      }
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
