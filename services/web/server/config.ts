// web settings, validated at start (docs/configuration.md).
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GATEWAY_PORT, SERVICES, baseConfigSchema, productionRequires, settings } from '@svc/service-kit';

const optionalUrl = settings.optionalString.refine((v) => v === undefined || URL.canParse(v), 'must be a URL');

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.web.port),
  /** Where pages fetch their data while rendering: the gateway, as seen from this process. */
  API_BASE_URL: optionalUrl,
  /** The origin readers use (canonical links, Open Graph, hreflang, robots.txt). */
  PUBLIC_BASE_URL: optionalUrl,
  /** The CAPTCHA widget's public site key; unset = no widget (the CAPTCHA is off). */
  CAPTCHA_SITE_KEY: settings.optionalString,
  /**
   * How long a page rendered for a reader without a session is served to the next ones
   * (ms; 0 = off). Pages for logged-in readers are never stored (server/page-cache.ts).
   */
  WEB_PAGE_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** The Vite build (client assets and server bundle); tests and images may move it. */
  WEB_BUILD_DIR: z.string().default(fileURLToPath(new URL('../build', import.meta.url))),
})
  // Production refuses the development fallbacks (docs/decisions/013-operations-port.md).
  .superRefine(
    productionRequires({
      API_BASE_URL: `calls the API at http://127.0.0.1:${GATEWAY_PORT}`,
      PUBLIC_BASE_URL: `writes http://localhost:${GATEWAY_PORT} into links and robots.txt`,
    }),
  )
  .transform((c) => ({
    ...c,
    API_BASE_URL: c.API_BASE_URL ?? `http://127.0.0.1:${GATEWAY_PORT}`,
    PUBLIC_BASE_URL: new URL(c.PUBLIC_BASE_URL ?? `http://localhost:${GATEWAY_PORT}`).origin,
  }));

export type Config = z.infer<typeof configSchema>;
