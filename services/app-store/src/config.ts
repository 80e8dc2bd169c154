// app-store settings (docs/decisions/008-configuration.md), validated at start.
import { z } from 'zod';
import {
  SERVICES,
  baseConfigSchema,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  productionRequires,
  readReplicaSettings,
  settings,
} from '@svc/service-kit';

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES['app-store'].port),
    /** Own database URL; unset = DATABASE_URL with the `app_store` schema. */
    APP_STORE_DATABASE_URL: settings.optionalString,
    /** Standbys of the shared database for the public reads (docs/decisions/037-read-replicas.md). */
    ...readReplicaSettings,
    /** Standbys of APP_STORE_DATABASE_URL; with an own URL the shared replicas do not apply. */
    APP_STORE_DATABASE_REPLICA_URLS: settings.postgresUrlList,
    /** ES256 public key (PEM) that verifies `sn_token` sessions (dev: the shared dev key file). */
    JWT_PUBLIC_KEY: settings.pem,
    /** Further accepted public keys (PEM blocks, one after the other) while the signing key rotates (docs/decisions/017-signing-key-rotation.md). */
    JWT_PUBLIC_KEYS: settings.pem,
    /** How long each process reuses a listing answer, in ms (0 = off); see store/listing.ts. */
    APP_STORE_LISTING_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /** How long a listing total is reused from Redis, in ms (0 = off); see store/listing.ts. */
    APP_STORE_TOTALS_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** Key of the HMAC that stores each reporter's client network; required in production. */
    IP_HASH_SECRET: settings.optionalString,
    /**
     * true: reports from accounts sharing a client network (IPv4 /24, IPv6 /56) count once
     * toward the block threshold (docs/decisions/018-abuse-resistant-reporting.md). false: every distinct reporter counts.
     */
    REPORT_DISTINCT_NETWORKS: settings.bool(false),
    /** Shared secret of the internal calls (auth's data export); required in production. */
    INTERNAL_TOKEN: settings.optionalString,
  })
  .superRefine(productionRequires({ IP_HASH_SECRET: 'is a key written in the source' }))
  .superRefine(internalTokenRequiredInProduction)
  .transform((c) => ({ ...c, INTERNAL_TOKEN: internalTokenOrDev(c.INTERNAL_TOKEN) }));

export type Config = z.infer<typeof configSchema>;

// The IP hash key (and its development default) is the kit's, shared with chat's and tests.
export { DEV_IP_HASH_SECRET, ipHashSecret } from '@svc/service-kit';
