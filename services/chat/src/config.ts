// chat settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
// DEV_IP_HASH_SECRET: used outside production when IP_HASH_SECRET is unset (production requires it).
import {
  DEV_IP_HASH_SECRET,
  SERVICES,
  baseConfigSchema,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  readReplicaSettings,
  settings,
  workerWatchdogSettings,
} from '@svc/service-kit';
import { DEFAULT_RETENTION_DAYS } from './domain/retention.js';

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES.chat.port),
    /** Own database URL; unset = DATABASE_URL with the `chat` schema. */
    CHAT_DATABASE_URL: settings.optionalString,
    /** Standbys of the shared database for GET /api/messages (docs/decisions/037-read-replicas.md). */
    ...readReplicaSettings,
    /** Standbys of CHAT_DATABASE_URL; with an own URL the shared replicas do not apply. */
    CHAT_DATABASE_REPLICA_URLS: settings.postgresUrlList,
    /** ES256 public key (PEM) that verifies `sn_token` sessions (dev: the shared dev pair). */
    JWT_PUBLIC_KEY: settings.pem,
    /** Further accepted public keys (PEM blocks, one after the other) while the signing key rotates (docs/decisions/017-signing-key-rotation.md). */
    JWT_PUBLIC_KEYS: settings.pem,
    /** Keys the HMAC of client IPs (likes, visitor names); required in production. */
    IP_HASH_SECRET: settings.optionalString,
    /** Shared secret of the internal calls (realtime's entrance reports, auth's data export); required in production. */
    INTERNAL_TOKEN: settings.optionalString,
    /** Parallel system-message jobs of the BullMQ worker. */
    SYSTEM_MESSAGE_CONCURRENCY: z.coerce.number().int().min(1).max(50).default(4),
    /**
     * Days a message is kept, with its likes, before the retention sweep deletes it
     * (docs/decisions/036-chat-retention.md). At least 1: no "off", since the bounded
     * history is what docs/privacy.md promises.
     */
    CHAT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_RETENTION_DAYS),
    /** A stuck system-message or retention Worker restarts the process (the kit's worker-watchdog.ts). */
    ...workerWatchdogSettings,
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV !== 'production') return;
    if (!c.IP_HASH_SECRET || c.IP_HASH_SECRET.length < 16) {
      ctx.addIssue({
        code: 'custom',
        path: ['IP_HASH_SECRET'],
        message: 'a secret of at least 16 characters is required in production',
      });
    }
  })
  .superRefine(internalTokenRequiredInProduction)
  .transform((c) => ({
    ...c,
    IP_HASH_SECRET: c.IP_HASH_SECRET ?? DEV_IP_HASH_SECRET,
    INTERNAL_TOKEN: internalTokenOrDev(c.INTERNAL_TOKEN),
  }));

export type Config = z.infer<typeof configSchema>;
