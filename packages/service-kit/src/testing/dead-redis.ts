// Test support: a Redis client pointed where nothing listens (127.0.0.1:1), configured
// like the kit's request-path client (no offline queue: commands fail at once). No
// retries and disconnectTimeout 0, or ioredis keeps a timer alive after disconnect().
import { Redis } from 'ioredis';

export function deadRedis(): Redis {
  const redis = new Redis('redis://127.0.0.1:1', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    disconnectTimeout: 0,
    lazyConnect: true,
  });
  redis.on('error', () => {});
  return redis;
}
