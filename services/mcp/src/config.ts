// mcp settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';
import { parseAllowedOrigins } from './domain/allowed-origins.js';

const serviceUrl = (name: keyof typeof SERVICES) => settings.url(`http://127.0.0.1:${SERVICES[name].port}`);

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.mcp.port),
  /**
   * Browser origins allowed to call /mcp (comma-separated `scheme://host[:port]`); a request
   * with any other `Origin` is refused with 403. Programs send no Origin and always pass.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseAllowedOrigins(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /**
   * Bound on one REST call of a tool. Below the gateway's UPSTREAM_TIMEOUT_MS (30 s), so an
   * agent gets a tool error instead of the gateway's 504.
   */
  MCP_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(25_000),
  // The services whose endpoints the tools call (their public ports, as the gateway's).
  APP_STORE_URL: serviceUrl('app-store'),
  SITES_URL: serviceUrl('sites'),
  CHAT_URL: serviceUrl('chat'),
  TRANSLATE_URL: serviceUrl('translate'),
});

export type Config = z.infer<typeof configSchema>;

/** The base URL of each service the tools call, by catalogue service name. */
export function upstreamsOf(config: Config): Record<string, string> {
  return {
    'app-store': config.APP_STORE_URL,
    sites: config.SITES_URL,
    chat: config.CHAT_URL,
    translate: config.TRANSLATE_URL,
  };
}
