// Settings come from the environment, validated with zod at start: a missing or bad
// setting stops the process with a message that names it.
import { z } from 'zod';
import { isRedisUrl } from '../redis/redis.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Parse `env` with `schema`; throw a ConfigError naming every bad or missing setting. */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) {
    const refused = testOnlyInProduction(result.data);
    if (refused.length > 0) throw new ConfigError(refused);
    return result.data;
  }
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const value = env[name];
      return value === undefined
        ? `${name} is missing: ${issue.message}`
        : `${name} is invalid: ${issue.message}`;
    }),
  );
}

/** Empty strings count as unset, as in most .env tooling. */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

export const settings = {
  optionalString,
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine((v) => URL.canParse(v), 'must be a URL'),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  /** A PEM key given inline, with `\n` escapes allowed (how most secret stores pass them). */
  pem: optionalString.transform((v) => v?.replace(/\\n/g, '\n')),
  /** PostgreSQL URLs, comma-separated (read replicas); unset or empty = none. */
  postgresUrlList: optionalString.refine(
    (v) =>
      v === undefined ||
      v
        .split(/[\s,]+/)
        .filter(Boolean)
        .every((u) => URL.canParse(u) && /^postgres(ql)?:$/.test(new URL(u).protocol)),
    'must be postgresql:// URLs, comma-separated',
  ),
};

/**
 * Production refuses development fallbacks (docs/decisions/013-operations-port.md): a superRefine that
 * names every listed setting left unset when NODE_ENV=production, with what the fallback
 * would have done (`IP_HASH_SECRET is missing: required when NODE_ENV=production (...)`).
 */
export function productionRequires<K extends string>(
  fallbacks: Record<K, string>,
): (config: { NODE_ENV: string } & Record<K, unknown>, ctx: z.RefinementCtx) => void {
  return (config, ctx) => {
    if (config.NODE_ENV !== 'production') return;
    for (const [name, fallback] of Object.entries(fallbacks) as [K, string][]) {
      const value = config[name];
      if (value === undefined || (typeof value === 'string' && value.trim() === ''))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `required when NODE_ENV=production (the development fallback ${fallback})`,
        });
    }
  };
}

/**
 * Settings of the base schema that exist for tests and benchmarks, with the only value
 * production accepts. Checked by loadConfig rather than a refinement, so every service's
 * schema (an `extend` of the base, which zod refuses on a refined object) refuses them.
 */
const TEST_ONLY_SETTINGS = { RATE_LIMIT_SCALE: 1 } as const;

function testOnlyInProduction(config: unknown): string[] {
  if (typeof config !== 'object' || config === null) return [];
  const values = config as Record<string, unknown>;
  if (values.NODE_ENV !== 'production') return [];
  return Object.entries(TEST_ONLY_SETTINGS)
    .filter(([name, allowed]) => name in values && values[name] !== allowed)
    .map(([name, allowed]) => `${name} is invalid: must be ${allowed} (unset) when NODE_ENV=production`);
}

/** Settings every service shares (every name in docs/configuration.md). */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: settings.url('postgresql://postgres@127.0.0.1:5432/svc'),
  /**
   * A PostgreSQL query still unanswered after this ends its connection (a connection gone
   * half-open would otherwise hold its pool slot until TCP gives up); prisma-adapter.ts.
   */
  PG_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** One node, `redis+cluster://h:p,h:p` or `redis+sentinel://h:p,h:p/<name>` (parseRedisUrl). */
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .refine(
      isRedisUrl,
      'must be redis://, rediss://, redis+cluster://h:p,h:p or redis+sentinel://h:p,h:p/<master name>',
    ),
  /** Prefix of every Redis key, queue and channel: lets tests and tenants share one Redis. */
  REDIS_PREFIX: z.string().default(''),
  /**
   * Who may set X-Forwarded-For for this service: the gateway's addresses (express
   * trust-proxy syntax). Loopback by default (one host, `npm start`); in Kubernetes the
   * gateway pods' CIDR. Never every private address by default: any pod could forge one.
   */
  TRUSTED_PROXIES: z.string().trim().min(1).default('loopback'),
  /** The private ops listener (/metrics, detailed /readyz); unset = PORT + 1000. */
  OPS_PORT: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number().int().min(0).max(65535).optional()),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Multiplies every rate limit of the process (rate-limit.ts), so a benchmark's one load
   * generator or a system test's thousands of requests are not throttled. Tests and
   * benchmarks only: production refuses anything but 1 (TEST_ONLY_SETTINGS).
   */
  RATE_LIMIT_SCALE: z.coerce.number().int().min(1).max(1_000_000).default(1),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** The setting of every process that runs BullMQ Workers (chat, auth, the sites worker). */
export const workerWatchdogSettings = {
  /**
   * How long a job may wait first in line while a Worker with a free slot takes none before
   * the process restarts (worker-watchdog.ts); 0 turns the watchdog off.
   */
  WORKER_STUCK_AFTER_MS: z.coerce.number().int().min(0).default(120_000),
};

/**
 * The read replica settings of a service that routes reads (sites, app-store, chat;
 * docs/decisions/037-read-replicas.md). A service adds its own `<SERVICE>_DATABASE_REPLICA_URLS`.
 */
export const readReplicaSettings = {
  /** Standbys of DATABASE_URL; unset = every read goes to the primary. */
  DATABASE_REPLICA_URLS: settings.postgresUrlList,
  /** A replica further behind than this is skipped until it catches up. */
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
};
export type ReadReplicaConfig = {
  DATABASE_REPLICA_URLS?: string;
  DATABASE_REPLICA_MAX_LAG_MS: number;
};

/** Used outside production only, so a dev machine needs no setup. */
export const DEV_IP_HASH_SECRET = 'dev-only-ip-hash-secret';

/** The key of stored client-IP hashes: IP_HASH_SECRET, required in production (else a dev default). */
export function ipHashSecret(config: { NODE_ENV: string; IP_HASH_SECRET?: string }): string {
  if (config.IP_HASH_SECRET) return config.IP_HASH_SECRET;
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(['IP_HASH_SECRET is missing: a secret key is required in production']);
  }
  return DEV_IP_HASH_SECRET;
}
