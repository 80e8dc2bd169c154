// realtime settings (DECISIONS.md §8), validated at start.
import { z } from 'zod';
import { SERVICES, baseConfigSchema, settings } from '@svc/service-kit';

export const configSchema = baseConfigSchema.extend({
  PORT: settings.port(SERVICES.realtime.port),
  /** The chat service, which stores the entrance message of each new WebSocket client. */
  CHAT_URL: settings.url(`http://127.0.0.1:${SERVICES.chat.port}`),
});

export type Config = z.infer<typeof configSchema>;
