// Rate limits of /api/v1, read from the endpoint catalogue (`limitFor`; docs/api-reference.md,
// docs/decisions/018-abuse-resistant-reporting.md): 200/min per IP on the public endpoints (one bucket for listing, detail, icon and categories), 60/min per API key or
// per user on the authenticated ones (one bucket), 5/hour app submissions per user, and
// (our addition) 10 reports an hour per user and 20 per client IP (REPORT_LIMITS in the
// catalogue, beside the authenticated bucket), and 30 failed API-key authentications per 10 minutes per IP, after which the
// IP's key attempts get 429 until the window ends: keys cannot be guessed at speed, and
// failed look-ups stay off the database.
// `scale` multiplies every limit of one app, for in-process tests; a process's limits are
// scaled by the kit's RATE_LIMIT_SCALE (benchmarks, system tests; refused in production).
import type { Request } from 'express';
import type { Redis } from '@svc/service-kit';
import { REPORT_LIMITS } from '@svc/types';
import { byIp, limitFor, pointsOf, rateLimit } from '@svc/service-kit';

/** The operations sharing each bucket (their catalogue limits must agree). */
export const PUBLIC_OPERATIONS = ['listApps', 'getApp', 'getAppIcon', 'listAppCategories'] as const;
export const AUTHENTICATED_OPERATIONS = [
  'updateApp',
  'withdrawApp',
  'reportApp',
  'listApiKeys',
  'createApiKey',
  'revokeApiKey',
  'getAppStoreMe',
  'listMyApps',
  'listInstalledApps',
  'installApp',
  'uninstallApp',
  'listAppReportQueue',
  'listAppReportHistory',
  'restoreApp',
  'blockApp',
  'dismissAppReports',
  'listAppAudit',
] as const;

/** Read when the limiters are made, so a test can check they follow the catalogue. */
const limits = () => ({
  public: limitFor(PUBLIC_OPERATIONS),
  authenticated: limitFor(AUTHENTICATED_OPERATIONS),
  submit: limitFor('submitApp'),
  reportPerUser: pointsOf(REPORT_LIMITS.also[0]),
  reportPerIp: pointsOf(REPORT_LIMITS.also[1]),
  // Ours, not an operation's limit, so not in the catalogue (packages/types README).
  keyFailures: { points: 30, durationSeconds: 600 },
});

/** Per key when the caller used one (each key its own budget), else per user. */
export const callerRateKey = (req: Request): string | undefined =>
  req.caller?.apiKey
    ? `key:${req.caller.apiKey.id}`
    : req.caller
      ? `user:${req.caller.userId}`
      : undefined;

export function createRateLimits(opts: { redis: Redis; prefix: string; scale?: number }) {
  const scale = opts.scale ?? 1;
  const LIMITS = limits();
  const make = (name: keyof typeof LIMITS, key: (req: Request) => string | undefined) =>
    rateLimit({
      redis: opts.redis,
      prefix: opts.prefix,
      name: `app-store-${name}`,
      points: LIMITS[name].points * scale,
      durationSeconds: LIMITS[name].durationSeconds,
      key,
    });
  return {
    public: make('public', byIp),
    authenticated: make('authenticated', callerRateKey),
    // Consumed by the route once the body is valid: a rejected draft costs no submission.
    submit: make('submit', () => undefined),
    // Consumed by the report route once the request is valid, before the store is asked.
    reportPerUser: make('reportPerUser', () => undefined),
    reportPerIp: make('reportPerIp', () => undefined),
    // Consumed by authentication on each unknown or revoked key, checked before each look-up.
    keyFailures: make('keyFailures', () => undefined),
  };
}
export type RateLimits = ReturnType<typeof createRateLimits>;
