// app-store settings (DECISIONS.md §8), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES['app-store'].port),
  /** Own database URL; unset = DATABASE_URL with the `app_store` schema. */
  APP_STORE_DATABASE_URL: settings.optionalString,
  /** ES256 public key (PEM) that verifies `sn_token` sessions; required once the endpoints exist. */
  JWT_PUBLIC_KEY: settings.pem,
});

export type Config = z.infer<typeof configSchema>;
