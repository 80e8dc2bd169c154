// Redis clients. Request-path clients fail fast while Redis is down (no offline queue),
// so a request gets a 503 at once instead of hanging; they reconnect on their own.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

export type { Redis };

export function createRedis(
  url: string,
  logger: Logger,
  options: { name?: string; forQueues?: boolean } = {},
): Redis {
  const redis = new Redis(url, {
    connectionName: options.name,
    // BullMQ requires a client that retries forever; request paths want fast failure.
    maxRetriesPerRequest: options.forQueues ? null : 1,
    enableOfflineQueue: options.forQueues ?? false,
    connectTimeout: 3000,
    // A Redis that accepts the connection but never answers must not hang requests.
    // Queue clients are exempt: BullMQ blocks on purpose (BRPOPLPUSH and friends).
    commandTimeout: options.forQueues ? undefined : 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  } satisfies RedisOptions);
  let down = false;
  redis.on('error', (err) => {
    if (!down) logger.warn({ err: err.message, client: options.name }, 'redis unavailable');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info({ client: options.name }, 'redis reconnected');
    down = false;
  });
  return redis;
}

/** Waits until a client is connected (start-up), bounded. */
export async function waitForRedis(redis: Redis, ms = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis not ready after ${ms} ms`)), ms);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
