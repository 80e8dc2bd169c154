// Per-endpoint rate limits: counters in Redis (shared by every replica), with an
// in-memory insurance limiter that takes over while Redis is down.
import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { ERROR_MESSAGES } from '@svc/types';

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
  /** Consume one point outside a middleware (e.g. keyed by a parsed body field). */
  consume: (key: string, res: Parameters<RequestHandler>[1]) => Promise<boolean>;
  /**
   * Answers 429 (and resolves false) when `key` has used up its points, without consuming
   * one: for limits that count only failures, checked before the work. Redis unreachable:
   * true (the insurance limiter guards consume, not this look-up).
   */
  check: (key: string, res: Parameters<RequestHandler>[1]) => Promise<boolean>;
}

export function rateLimit(options: RateLimitOptions): RateLimit {
  const keyPrefix = `${options.prefix}rl:${options.name}`;
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({
      keyPrefix,
      points: options.points,
      duration: options.durationSeconds,
    }),
  });

  const refuse = (res: Parameters<RequestHandler>[1], r: RateLimiterRes) => {
    setHeaders(res, options.points, r);
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(r.msBeforeNext / 1000))));
    res.status(429).json({ error: ERROR_MESSAGES.tooManyRequests });
  };

  const consume: RateLimit['consume'] = async (key, res) => {
    try {
      const r = await limiter.consume(key);
      setHeaders(res, options.points, r);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      refuse(res, rejection);
      return false;
    }
  };

  const check: RateLimit['check'] = async (key, res) => {
    const r = await limiter.get(key).catch(() => null);
    if (r === null || r.consumedPoints < options.points) return true;
    refuse(res, r);
    return false;
  };

  const middleware: RequestHandler = (req, res, next) => {
    const key = options.key(req);
    if (key === undefined) return next();
    consume(key, res).then((ok) => (ok ? next() : undefined), next);
  };
  return { middleware, consume, check };
}

function setHeaders(res: Parameters<RequestHandler>[1], limit: number, r: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
  res.setHeader('RateLimit-Reset', String(Math.max(0, Math.ceil(r.msBeforeNext / 1000))));
}
