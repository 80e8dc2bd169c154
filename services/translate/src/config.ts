// translate settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, limitFor, settings } from '@svc/service-kit';

/** POST /api/translate per IP per minute, from the endpoint catalogue (20; docs/api-reference.md). */
export const TRANSLATE_LIMIT_PER_MINUTE = limitFor('translateText').points;

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES.translate.port),
    /** AI translation; unset = POST /api/translate answers 503 (no provider configured). */
    ANTHROPIC_API_KEY: settings.optionalString,
    ANTHROPIC_BASE_URL: settings.optionalString.refine(
      (v) => v === undefined || URL.canParse(v),
      'must be a URL',
    ),
    /** A fast, inexpensive model is plenty for short translations. */
    ANTHROPIC_MODEL: z.string().min(1).default('claude-haiku-4-5'),
    /** Per attempt; with TRANSLATE_AI_MAX_RETRIES the worst case is bounded (≈ 2 × 20 s + backoff). */
    TRANSLATE_AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
    TRANSLATE_AI_MAX_RETRIES: z.coerce.number().int().min(0).max(3).default(1),
    /**
     * Benchmarks only: all their traffic comes from one address. Raising it above 20 is
     * refused when NODE_ENV=production.
     */
    TRANSLATE_RATE_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(TRANSLATE_LIMIT_PER_MINUTE),
  })
  .refine(
    (c) =>
      c.NODE_ENV !== 'production' ||
      c.TRANSLATE_RATE_LIMIT_PER_MINUTE <= TRANSLATE_LIMIT_PER_MINUTE,
    {
      path: ['TRANSLATE_RATE_LIMIT_PER_MINUTE'],
      message: `may not exceed ${TRANSLATE_LIMIT_PER_MINUTE} in production (it exists for benchmarks)`,
    },
  );

export type Config = z.infer<typeof configSchema>;
