// Readiness checks: each answers within a bound, so /readyz never hangs on a dead peer.
// A check that rejects makes the process unavailable (503); one that resolves with
// `{ degraded }` leaves it ready (200) and says what is missing, for what the process
// does without (a read replica down: its reads go to the primary).
export type ReadinessCheck = () => Promise<void | { degraded: string }>;

export type CheckResult = 'ok' | 'degraded' | 'unavailable';

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** PostgreSQL answers `SELECT 1` (any client with $queryRaw, i.e. a PrismaClient). */
export function postgresCheck(
  db: { $queryRaw: (q: TemplateStringsArray) => Promise<unknown> },
  ms = 2000,
): ReadinessCheck {
  return async () => {
    await withTimeout(db.$queryRaw`SELECT 1`, ms, 'PostgreSQL');
  };
}

/** Redis answers PING. */
export function redisCheck(redis: { ping: () => Promise<string> }, ms = 2000): ReadinessCheck {
  return async () => {
    await withTimeout(redis.ping(), ms, 'Redis');
  };
}

export interface ChecksReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
  /** What each degraded check said; absent when none is. */
  degraded?: Record<string, string>;
}

export async function runChecks(checks: Record<string, ReadinessCheck>): Promise<ChecksReport> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((n) => checks[n]!()));
  const out: Record<string, CheckResult> = {};
  const degraded: Record<string, string> = {};
  results.forEach((r, i) => {
    const name = names[i]!;
    if (r.status === 'rejected') out[name] = 'unavailable';
    else if (r.value && typeof r.value.degraded === 'string') {
      out[name] = 'degraded';
      degraded[name] = r.value.degraded;
    } else out[name] = 'ok';
  });
  const report: ChecksReport = {
    ready: results.every((r) => r.status === 'fulfilled'),
    checks: out,
  };
  if (Object.keys(degraded).length > 0) report.degraded = degraded;
  return report;
}
