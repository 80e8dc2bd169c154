// sites settings (docs/decisions/008-configuration.md), validated at start. The API process and the worker
// share the outbound, AI and database settings; each has its own port.
import { z } from 'zod';
import {
  SERVICES,
  baseConfigSchema,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  productionRequires,
  readReplicaSettings,
  settings,
  workerWatchdogSettings,
} from '@svc/service-kit';

const optionalUrl = settings.optionalString.refine(
  (v) => v === undefined || URL.canParse(v),
  'must be a URL',
);

/** `host:port` pairs, comma- or space-separated. */
const hostPortList = z
  .string()
  .default('')
  .transform((v) => v.split(/[\s,]+/).filter(Boolean))
  .refine(
    (list) => list.every((hp) => /^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(hp)),
    'must be host:port pairs',
  );

const sharedSettings = {
  /** Own database URL; unset = DATABASE_URL with the `sites` schema. */
  SITES_DATABASE_URL: settings.optionalString,
  /** AI tagging; unset = the local keyword classifier tags sites. */
  ANTHROPIC_API_KEY: settings.optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  /** Hosts the scraper and the claim check may fetch although they are private (tests only). */
  OUTBOUND_ALLOW_HOSTS: hostPortList,
};

/** Private hosts the scraper may fetch exist for tests: never in production. */
function noAllowHostsInProduction(
  c: { NODE_ENV: string; OUTBOUND_ALLOW_HOSTS: string[] },
  ctx: z.RefinementCtx,
): void {
  if (c.NODE_ENV === 'production' && c.OUTBOUND_ALLOW_HOSTS.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['OUTBOUND_ALLOW_HOSTS'],
      message:
        'must be empty when NODE_ENV=production (it lets the scraper reach private hosts; tests only)',
    });
}

/** Where /sitemap.xml points when PUBLIC_BASE_URL is unset (development only). */
const DEV_PUBLIC_BASE_URL = 'http://localhost:8080';

export const configSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES.sites.port),
    ...sharedSettings,
    /** Standbys of the shared database for the public reads (docs/decisions/037-read-replicas.md). */
    ...readReplicaSettings,
    /** Standbys of SITES_DATABASE_URL; with an own URL the shared replicas do not apply. */
    SITES_DATABASE_REPLICA_URLS: settings.postgresUrlList,
    /** ES256 public key (PEM) that verifies `sn_token` sessions; required in production. */
    JWT_PUBLIC_KEY: settings.pem,
    /** Further accepted public keys (PEM blocks, one after the other) while the signing key rotates (docs/decisions/017-signing-key-rotation.md). */
    JWT_PUBLIC_KEYS: settings.pem,
    /** Key of the HMAC that stores client IPs (boosts); required in production. */
    IP_HASH_SECRET: settings.optionalString,
    /** Shared secret of the internal calls (auth's data export); required in production. */
    INTERNAL_TOKEN: settings.optionalString,
    /** Public origin of the site (gateway), for the absolute URLs of /sitemap.xml. */
    PUBLIC_BASE_URL: settings.optionalString.refine(
      (v) => v === undefined || URL.canParse(v),
      'must be a URL',
    ),
    /** How long a GET /api/sites page may be served from the process cache (0 = off). */
    SITES_LIST_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
    /** How long the total of a GET /api/sites filter may be reused (0 = off). */
    SITES_COUNT_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /**
     * Site pages per sitemap file: /sitemap.xml lists them all while they fit, else it is an
     * index of /sitemap-<n>.xml files of about half to all of this many (the protocol allows 50 000 URLs).
     */
    SITEMAP_MAX_SITES: z.coerce.number().int().min(0).max(49_999).default(10_000),
    /** How long a rendered sitemap file is served again from the process (0 = off). */
    SITEMAP_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(600_000),
    /** CAPTCHA on POST /api/sites: on when the secret is set. */
    CAPTCHA_SECRET_KEY: settings.optionalString,
    /** A Cloudflare-Turnstile-compatible `siteverify` endpoint. */
    CAPTCHA_VERIFY_URL: settings.url('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
    /** Image-of-the-day provider (JSON in the Bing HPImageArchive shape). */
    DAILY_BG_SOURCE_URL: settings.url(
      'https://www.bing.com/HPImageArchive.aspx?format=js&idx=0&n=1&mkt=en-US',
    ),
  })
  .superRefine(
    productionRequires({
      IP_HASH_SECRET: 'is a key written in the source',
      PUBLIC_BASE_URL: `writes ${DEV_PUBLIC_BASE_URL} into /sitemap.xml`,
    }),
  )
  .superRefine(noAllowHostsInProduction)
  .superRefine(internalTokenRequiredInProduction)
  .transform((c) => ({
    ...c,
    PUBLIC_BASE_URL: c.PUBLIC_BASE_URL ?? DEV_PUBLIC_BASE_URL,
    INTERNAL_TOKEN: internalTokenOrDev(c.INTERNAL_TOKEN),
  }));
export type Config = z.infer<typeof configSchema>;

// The IP hash key (and its development default) is the kit's, shared with chat's and tests.
export { DEV_IP_HASH_SECRET, ipHashSecret } from '@svc/service-kit';

const positiveInt = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

export const workerConfigSchema = baseConfigSchema
  .extend({
    PORT: settings.port(SERVICES['sites-worker'].port),
    ...sharedSettings,
    /** Model used for AI tagging. */
    ANTHROPIC_MODEL: z.string().min(1).default('claude-haiku-4-5'),
    /** Scrape jobs run at once per worker process (I/O bound: mostly waiting on sites). */
    SCRAPE_CONCURRENCY: positiveInt(8, 256),
    /** Tag jobs run at once per worker process (waiting on the AI API). */
    TAG_CONCURRENCY: positiveInt(8, 256),
    /** Outbound page fetch: connect timeout, total timeout, body cap (bytes), redirect cap. */
    SCRAPE_CONNECT_TIMEOUT_MS: positiveInt(5_000, 60_000),
    SCRAPE_TIMEOUT_MS: positiveInt(15_000, 120_000),
    SCRAPE_MAX_BYTES: positiveInt(2 * 1024 * 1024, 50 * 1024 * 1024),
    SCRAPE_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
    /**
     * BullMQ job lock: renewed every half of it while a job runs; a job whose worker died is
     * taken up again once its lock has expired and a stalled-job check (every
     * WORKER_STALLED_INTERVAL_MS) has seen it. Must exceed the longest event-loop stall.
     */
    WORKER_LOCK_DURATION_MS: positiveInt(30_000, 600_000),
    WORKER_STALLED_INTERVAL_MS: positiveInt(15_000, 600_000),
    /** A stuck scrape or tag Worker restarts the process (the kit's worker-watchdog.ts). */
    ...workerWatchdogSettings,
  })
  .superRefine(noAllowHostsInProduction);
export type WorkerConfig = z.infer<typeof workerConfigSchema>;
