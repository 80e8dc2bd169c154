// translate settings (DECISIONS.md §8), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.translate.port),
  /** AI translation; unset = POST /api/translate answers 503 (no provider configured). */
  ANTHROPIC_API_KEY: settings.optionalString,
  ANTHROPIC_BASE_URL: settings.optionalString.refine((v) => v === undefined || URL.canParse(v), 'must be a URL'),
});

export type Config = z.infer<typeof configSchema>;
