// realtime process: configuration, wiring, listen, graceful shutdown. No database.
import './instrument.js';
import { createRedis, createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { buildApp } from './app.js';
import { configSchema } from './config.js';
import { compileTrust } from './domain/client-ip.js';
import { createEntranceReporter } from './entrance-reporter.js';
import { startEventRelay } from './event-relay.js';
import { createHub } from './hub.js';
import { createRealtimeMetrics } from './realtime-metrics.js';
import { attachWebSocketServer } from './ws-server.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const rt = createRuntime('realtime', config);
  const metrics = createRealtimeMetrics(rt.metrics.registry);
  const hub = createHub({ maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES, metrics });
  // Subscriber mode needs its own connection; it retries forever and re-subscribes.
  const subscriber = createRedis(config.REDIS_URL, rt.logger, {
    name: 'realtime-sub',
    forQueues: true,
  });
  startEventRelay({
    subscriber,
    redisPrefix: config.REDIS_PREFIX,
    hub,
    logger: rt.logger,
    metrics,
  });
  const entrance = createEntranceReporter({
    chatUrl: config.CHAT_URL,
    internalToken: config.INTERNAL_TOKEN,
    timeoutMs: config.ENTRANCE_TIMEOUT_MS,
    logger: rt.logger,
    metrics,
  });
  const app = buildApp({
    logger: rt.logger,
    metrics: rt.metrics,
    redis: rt.redis,
    subscriber,
    trustProxy: config.TRUSTED_PROXIES,
  });
  // disconnect, not quit: with the offline queue on, QUIT would wait for Redis forever.
  await rt.serve(app, [{ name: 'subscriber', close: () => subscriber.disconnect() }], (server) =>
    attachWebSocketServer(server, {
      hub,
      entrance,
      trust: compileTrust(config.TRUSTED_PROXIES),
      logger: rt.logger,
      pingIntervalMs: config.WS_PING_INTERVAL_MS,
      closeGraceMs: config.WS_CLOSE_GRACE_MS,
      maxConnectionsPerIp: config.WS_MAX_CONNECTIONS_PER_IP,
    }),
  );
}

main().catch(exitOnStartupError('realtime'));
