// What the tracing benchmarks that load the built app-store alone share
// (tracing-pairs.mjs, tracing-instructions.mjs): its environment and the callers'
// `traceparent`s it is loaded with.

/**
 * The app-store's environment for a benchmark: the seeded `schema`, its own Redis prefix,
 * rate limits out of the way, tracing off unless the caller's settings that follow say so.
 */
export function appStoreEnv({ databaseUrl, redisUrl, schema, redisPrefix }) {
  return {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    APP_STORE_DATABASE_URL: `${databaseUrl}?schema=${schema}`,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    RATE_LIMIT_SCALE: '1000000',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
  };
}

/**
 * 100 callers' version-00 `traceparent`s, each of its own trace, the first `share` of them
 * sampled (flags 01): what an app-store behind a gateway sampling that share receives.
 */
export function callerTraceparents(share) {
  return Array.from({ length: 100 }, (_, i) => {
    const traceId = (0x0af7651916cd43dd8448eb211c800000n + BigInt(i)).toString(16).padStart(32, '0');
    return `00-${traceId}-b7ad6b7169203331-${i < Math.round(share * 100) ? '01' : '00'}`;
  });
}
