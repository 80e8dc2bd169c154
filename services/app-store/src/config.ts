// app-store settings (docs/decisions.md §8), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES['app-store'].port),
    /** Own database URL; unset = DATABASE_URL with the `app_store` schema. */
    APP_STORE_DATABASE_URL: settings.optionalString,
    /** ES256 public key (PEM) that verifies `sn_token` sessions (dev: the shared dev key file). */
    JWT_PUBLIC_KEY: settings.pem,
    /**
     * Multiplies every rate limit, for benchmarks (one load generator, one IP). Refused in
     * production, where the documented limits always apply.
     */
    /** How long each process reuses a listing answer, in ms (0 = off); see listing.ts. */
    APP_STORE_LISTING_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    APP_STORE_RATE_LIMIT_SCALE: z.coerce.number().int().min(1).max(1_000_000).default(1),
  })
  .refine((c) => c.NODE_ENV !== 'production' || c.APP_STORE_RATE_LIMIT_SCALE === 1, {
    path: ['APP_STORE_RATE_LIMIT_SCALE'],
    message: 'must be 1 (unset) when NODE_ENV=production',
  });

export type Config = z.infer<typeof configSchema>;
