// auth's settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
import {
  SERVICES,
  baseConfigSchema,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  loadConfig,
  productionRequires,
  settings,
  workerWatchdogSettings,
} from '@svc/service-kit';
import { RESEND_TIMEOUT_MS } from './clients/mailer.js';
import { DATA_EXPORT_TIMEOUT_MS } from './clients/user-data-services.js';

export const authConfigSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.auth.port),
  AUTH_DATABASE_URL: settings.optionalString,
  JWT_PRIVATE_KEY: settings.pem,
  JWT_PUBLIC_KEY: settings.pem,
  /** Further accepted public keys (PEM blocks, one after the other) while the signing key rotates (docs/decisions/017-signing-key-rotation.md). */
  JWT_PUBLIC_KEYS: settings.pem,
  /** Unset: the dev mailer logs codes instead of sending them. */
  RESEND_API_KEY: settings.optionalString,
  RESEND_BASE_URL: settings.optionalString.refine((v) => v === undefined || URL.canParse(v), 'must be a URL'),
  /** A send still unanswered after this fails: 502 for a login code, a retry for a notice. */
  RESEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(RESEND_TIMEOUT_MS),
  EMAIL_FROM: z.string().default('Svc <login@svc.local>'),
  /** Keys the login-code hashes; derived from the JWT private key when unset. */
  LOGIN_CODE_SECRET: settings.optionalString,
  /**
   * Moderators by configuration (docs/decisions/016-moderator-role.md): comma-separated emails, trimmed and
   * compared lower-cased; the API cannot revoke them.
   */
  MODERATOR_EMAILS: z
    .string()
    .default('')
    .transform((v) => [...new Set(v.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean))])
    .pipe(z.array(z.email())),
  /** A stuck notify-email Worker restarts the process (the kit's worker-watchdog.ts). */
  ...workerWatchdogSettings,
  /** The services auth asks, on their internal path, for their part of a user's data export and to delete it. */
  APP_STORE_URL: settings.url(`http://127.0.0.1:${SERVICES['app-store'].port}`),
  SITES_URL: settings.url(`http://127.0.0.1:${SERVICES.sites.port}`),
  CHAT_URL: settings.url(`http://127.0.0.1:${SERVICES.chat.port}`),
  /** Shared secret of the internal calls (data export, account deletion); required in production. */
  INTERNAL_TOKEN: settings.optionalString,
  /** A service whose part of a data export has not arrived after this fails the export (503). */
  DATA_EXPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DATA_EXPORT_TIMEOUT_MS),
})
  // The dev mailer writes every login code to the log: never in production.
  .superRefine(
    productionRequires({ RESEND_API_KEY: 'writes login codes to the log instead of mailing them' }),
  )
  .superRefine(internalTokenRequiredInProduction)
  .transform((c) => ({ ...c, INTERNAL_TOKEN: internalTokenOrDev(c.INTERNAL_TOKEN) }));
export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(authConfigSchema, env);
