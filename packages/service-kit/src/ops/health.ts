// Readiness checks: each answers within a bound, so /readyz never hangs on a dead peer.
export type ReadinessCheck = () => Promise<void>;

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

export async function runChecks(
  checks: Record<string, ReadinessCheck>,
): Promise<{ ready: boolean; checks: Record<string, 'ok' | 'unavailable'> }> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((n) => checks[n]!()));
  const out: Record<string, 'ok' | 'unavailable'> = {};
  results.forEach((r, i) => (out[names[i]!] = r.status === 'fulfilled' ? 'ok' : 'unavailable'));
  return { ready: results.every((r) => r.status === 'fulfilled'), checks: out };
}
