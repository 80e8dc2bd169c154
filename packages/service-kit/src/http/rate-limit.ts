// Per-endpoint rate limits: counters in Redis (shared by every replica), with an
// in-memory insurance limiter that takes over while Redis is down.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from '../redis/redis.js';
import { ENDPOINTS, ERROR_MESSAGES, RATE_LIMIT_HEADERS, WINDOW_SECONDS, type RateLimitRule } from '@svc/types';

type Response = Parameters<RequestHandler>[1];

/**
 * RATE_LIMIT_SCALE of this process, set once by createRuntime from the validated config:
 * every limiter made here counts `points × scale`. Process-wide, because limiters are made
 * deep inside each service's routes; in-process tests never call createRuntime, so they
 * see 1 and pass the points they want.
 */
let processScale = 1;

/** Multiplies every limiter this process makes from now on (RATE_LIMIT_SCALE; 1 in production). */
export function scaleRateLimits(scale: number): void {
  if (!Number.isInteger(scale) || scale < 1) throw new Error(`rate limit scale must be a positive integer, got ${scale}`);
  processScale = scale;
}

/** points/durationSeconds of a catalogue limit (`@svc/types` ENDPOINTS), for `rateLimit`. */
export const pointsOf = (rule: Pick<RateLimitRule, 'limit' | 'window'>) => ({
  points: rule.limit,
  durationSeconds: WINDOW_SECONDS[rule.window],
});

/**
 * The catalogue's limit of one or more operations (`rateLimit` of their ENDPOINTS entries)
 * as points/durationSeconds: the one source of every limiter's numbers. Several operations
 * share one bucket (app-store's public and authenticated limits), so they must agree.
 * `session`: the limit for a caller with a session, where the entry has one (boost).
 * Throws at start-up for an operation without a limit or operations that disagree.
 */
export function limitFor(
  operationIds: string | readonly string[],
  options: { session?: boolean } = {},
): { points: number; durationSeconds: number } {
  const ids = typeof operationIds === 'string' ? [operationIds] : operationIds;
  const found = ids.map((id) => {
    const rule = ENDPOINTS.find((e) => e.operationId === id)?.rateLimit;
    if (!rule) throw new Error(`${id}: no rate limit in the endpoint catalogue`);
    const limit = options.session ? rule.session?.limit : rule.limit;
    if (limit === undefined) throw new Error(`${id}: no session limit in the endpoint catalogue`);
    return pointsOf({ limit, window: rule.window });
  });
  const [first] = found;
  if (!first) throw new Error('limitFor: no operation named');
  if (found.some((f) => f.points !== first.points || f.durationSeconds !== first.durationSeconds))
    throw new Error(`${ids.join(', ')}: one bucket, but the catalogue gives them different limits`);
  return first;
}

export interface RateLimitOptions {
  redis: Redis;
  /** Redis key prefix of the whole deployment (REDIS_PREFIX). */
  prefix: string;
  /** Unique per limit, e.g. 'sites-submit'. */
  name: string;
  points: number;
  durationSeconds: number;
  /** What is counted: an IP, a user id, an API key id, an email. No key: not limited. */
  key: (req: Request) => string | undefined;
}

export interface RateLimit {
  middleware: RequestHandler;
  /**
   * Consume one point outside a middleware (e.g. keyed by a parsed body field). `quiet`:
   * the RateLimit-* headers are set only on a refusal (another limit of the same request
   * reports its own).
   */
  consume: (key: string, res: Response, options?: { quiet?: boolean }) => Promise<boolean>;
  /** Gives a consumed point back (an attempt that turned out not to count, e.g. a success). */
  refund: (key: string) => Promise<void>;
  /**
   * Answers 429 (and resolves false) when `key` has used up its points, without consuming
   * one: for limits that count only failures, checked before the work. Redis unreachable:
   * true (the insurance limiter guards consume, not this look-up).
   */
  check: (key: string, res: Response) => Promise<boolean>;
}

export function rateLimit(options: RateLimitOptions): RateLimit {
  const keyPrefix = `${options.prefix}rl:${options.name}`;
  const points = options.points * processScale;
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix,
    points,
    duration: options.durationSeconds,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix,
      points,
      duration: options.durationSeconds,
    }),
  });

  const refuse = (res: Response, r: RateLimiterRes) =>
    tooManyRequests(res, points, r.remainingPoints, r.msBeforeNext);

  const consume: RateLimit['consume'] = async (key, res, consumeOptions) => {
    try {
      const r = await limiter.consume(key);
      if (!consumeOptions?.quiet) setHeaders(res, points, r.remainingPoints, r.msBeforeNext);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      refuse(res, rejection);
      return false;
    }
  };

  const check: RateLimit['check'] = async (key, res) => {
    const r = await limiter.get(key).catch(() => null);
    if (r === null || r.consumedPoints < points) return true;
    refuse(res, r);
    return false;
  };

  const refund: RateLimit['refund'] = async (key) => {
    await limiter.reward(key).catch(() => undefined);
  };

  const middleware: RequestHandler = (req, res, next) => {
    const key = options.key(req);
    if (key === undefined) return next();
    consume(key, res).then((ok) => (ok ? next() : undefined), next);
  };
  return { middleware, consume, refund, check };
}

export interface DistinctLimitOptions {
  redis: Redis;
  prefix: string;
  /** Unique per limit, e.g. 'auth-send-code-addresses'. */
  name: string;
  /** How many different values one key may bring per window. */
  limit: number;
  durationSeconds: number;
}

export interface DistinctLimit {
  /**
   * Admits `value` for `key` when it was already counted in the current window, or when
   * fewer than `limit` different values were; otherwise answers 429 and resolves false.
   * Redis unreachable: rejects (the caller answers 503 and does nothing), because an
   * abuse limit that silently stops counting is no limit.
   */
  admit: (key: string, value: string, res: Response) => Promise<boolean>;
}

// One round trip, atomic: a repeat is free, a new value is added while there is room. The
// window starts with the first value and lasts `durationSeconds` (a fixed window).
const ADMIT_DISTINCT = `
local n = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, n, redis.call('PTTL', KEYS[1])} end
if n >= tonumber(ARGV[2]) then return {0, n, redis.call('PTTL', KEYS[1])} end
redis.call('SADD', KEYS[1], ARGV[1])
if n == 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, n + 1, redis.call('PTTL', KEYS[1])}`;

/**
 * "At most N different values per key per window", e.g. login codes asked for 30 different
 * email addresses an hour per client network. Values are kept as short hashes, never as
 * given.
 */
export function distinctLimit(options: DistinctLimitOptions): DistinctLimit {
  const keyPrefix = `${options.prefix}rl:${options.name}:`;
  const windowMs = options.durationSeconds * 1000;
  const limit = options.limit * processScale;
  return {
    async admit(key, value, res) {
      const member = createHash('sha256').update(value).digest('base64url').slice(0, 16);
      const [admitted, count, ttlMs] = (await options.redis.eval(
        ADMIT_DISTINCT,
        1,
        keyPrefix + key,
        member,
        limit,
        windowMs,
      )) as [number, number, number];
      const msLeft = ttlMs > 0 ? ttlMs : windowMs;
      if (admitted === 1) return true;
      tooManyRequests(res, limit, limit - count, msLeft);
      return false;
    },
  };
}

function tooManyRequests(res: Response, limit: number, remaining: number, msBeforeNext: number): void {
  setHeaders(res, limit, remaining, msBeforeNext);
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(msBeforeNext / 1000))));
  res.status(429).json({ error: ERROR_MESSAGES.tooManyRequests });
}

function setHeaders(res: Response, limit: number, remaining: number, msBeforeNext: number): void {
  setRateLimitHeaders(res, { limit, remaining, resetSeconds: Math.ceil(msBeforeNext / 1000) });
}

/** The one writer of the `RateLimit-*` headers, for limiters here and limits kept elsewhere (boosts). */
export function setRateLimitHeaders(
  res: Response,
  { limit, remaining, resetSeconds }: { limit: number; remaining: number; resetSeconds: number },
): void {
  res.setHeader(RATE_LIMIT_HEADERS.limit, String(limit));
  res.setHeader(RATE_LIMIT_HEADERS.remaining, String(Math.max(0, remaining)));
  res.setHeader(RATE_LIMIT_HEADERS.reset, String(Math.max(0, resetSeconds)));
}
