// sites settings (DECISIONS.md §8), validated at start. The API process and the worker
// share the outbound, AI and database settings; each has its own port.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';

const optionalUrl = settings.optionalString.refine((v) => v === undefined || URL.canParse(v), 'must be a URL');

/** `host:port` pairs, comma- or space-separated. */
const hostPortList = z
  .string()
  .default('')
  .transform((v) => v.split(/[\s,]+/).filter(Boolean))
  .refine((list) => list.every((hp) => /^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(hp)), 'must be host:port pairs');

const sharedSettings = {
  /** Own database URL; unset = DATABASE_URL with the `sites` schema. */
  SITES_DATABASE_URL: settings.optionalString,
  /** AI tagging; unset = the local keyword classifier tags sites. */
  ANTHROPIC_API_KEY: settings.optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  /** Hosts the scraper and the claim check may fetch although they are private (tests only). */
  OUTBOUND_ALLOW_HOSTS: hostPortList,
};

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.sites.port),
  ...sharedSettings,
  /** ES256 public key (PEM) that verifies `sn_token` sessions; required once the endpoints exist. */
  JWT_PUBLIC_KEY: settings.pem,
  /** CAPTCHA on POST /api/sites: on when the secret is set. */
  CAPTCHA_SECRET_KEY: settings.optionalString,
  /** A Cloudflare-Turnstile-compatible `siteverify` endpoint. */
  CAPTCHA_VERIFY_URL: settings.url('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  /** Image-of-the-day provider (JSON in the Bing HPImageArchive shape). */
  DAILY_BG_SOURCE_URL: settings.url('https://www.bing.com/HPImageArchive.aspx?format=js&idx=0&n=1&mkt=en-US'),
});
export type Config = z.infer<typeof configSchema>;

export const workerConfigSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES['sites-worker'].port),
  ...sharedSettings,
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;
