// realtime settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
import { WS_PING_INTERVAL_MS } from '@svc/types';
import {
  SERVICES,
  baseConfigSchema,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  settings,
} from '@svc/service-kit';

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES.realtime.port),
    /** The chat service, which stores the entrance message of each new WebSocket client. */
    CHAT_URL: settings.url(`http://127.0.0.1:${SERVICES.chat.port}`),
    /** Shared secret for chat's /internal/entrance; required in production. */
    INTERNAL_TOKEN: settings.optionalString,
    /** Protocol-level ping period; a peer that missed the previous ping is dropped. */
    WS_PING_INTERVAL_MS: z.coerce.number().int().min(100).default(WS_PING_INTERVAL_MS),
    /** A client whose unsent data would pass this many bytes is disconnected (slow reader). */
    WS_MAX_BUFFERED_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(128 * 1024),
    /** Open WebSockets one client IP may hold on a replica (0: no cap); more get 429. */
    WS_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).default(64),
    /** How long shutdown waits for clients to answer the 1012 close before cutting them. */
    WS_CLOSE_GRACE_MS: z.coerce.number().int().min(0).default(3000),
    /**
     * true: events come from the Redis Stream with ids, clients may resume (last_event_id).
     * false: today's pub/sub relay without ids or resume (a fallback, and the benchmark's
     * baseline).
     */
    WS_RESUME: settings.bool(true),
    /** Timeout of the entrance call to chat (fire-and-forget). */
    ENTRANCE_TIMEOUT_MS: z.coerce.number().int().min(50).default(2000),
  })
  .superRefine(internalTokenRequiredInProduction)
  .transform((c) => ({ ...c, INTERNAL_TOKEN: internalTokenOrDev(c.INTERNAL_TOKEN) }));

export type Config = z.infer<typeof configSchema>;
