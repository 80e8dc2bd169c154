// Recognises "PostgreSQL or Redis is unreachable" among the errors a request can hit,
// so the error handler answers 503 (and the process keeps running) instead of 500.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: PostgreSQL is going away
  '57P03', // cannot_connect_now: starting up or shutting down
  '08000',
  '08001',
  '08003',
  '08006', // connection exceptions
  'P1001',
  'P1002',
  'P1008',
  'P1017', // Prisma: can't reach / timed out / server closed the connection
]);

const MESSAGE_PATTERNS = [
  /Connection is closed/i, // ioredis
  /Command timed out/i, // ioredis commandTimeout: connected but not answering
  /enableOfflineQueue/i, // ioredis with the offline queue off
  /Reached the max retries per request/i, // ioredis MaxRetriesPerRequestError
  /Redis is not ready|not ready to accept/i,
  // Redis Cluster (ioredis Cluster): a master down or the cluster not serving a slot.
  /Too many Cluster redirections/i,
  /^CLUSTERDOWN/,
  /Cluster isn't ready/i,
  /Failed to refresh slots cache/i,
  /Connection terminated/i, // pg
  /terminating connection due to administrator command/i, // PostgreSQL shutting down
  /the database system is (shutting down|starting up|in recovery mode)/i,
  /timeout exceeded when trying to connect/i, // pg pool
  /Can't reach database server/i, // Prisma
  /DatabaseNotReachable|DatabaseDoesNotExist/i, // driver adapter error kinds
  /connect ECONNREFUSED/i,
];

/**
 * SQLSTATE classes that mean "the server cannot serve you now", not "your query is wrong":
 * 08 connection exception, 53 insufficient resources (too many connections, out of
 * memory or disk), 57P operator intervention (admin or crash shutdown, starting up,
 * database dropped).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P)[0-9A-Z]{2,3}$/;

const isUnavailableCode = (code: unknown) =>
  typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code));

export function isDependencyUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as {
    code?: unknown;
    originalCode?: unknown;
    message?: unknown;
    cause?: unknown;
    name?: unknown;
    errors?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (isUnavailableCode(e.code) || isUnavailableCode(e.originalCode)) return true;
  if (e.name === 'MaxRetriesPerRequestError' || e.name === 'ClusterAllFailedError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (MESSAGE_PATTERNS.some((p) => p.test(message))) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDependencyUnavailable(x, depth + 1)))
    return true;
  // Prisma wraps what the pg driver adapter saw (e.g. a raw query's P2010 "Raw query failed.
  // Code: `57P01`" while PostgreSQL shuts down) in meta.driverAdapterError.
  if (isDependencyUnavailable(e.meta?.driverAdapterError, depth + 1)) return true;
  return isDependencyUnavailable(e.cause, depth + 1);
}
