// realtime process: configuration, wiring, listen, graceful shutdown. No database.
import './instrument.js';
import { createRedis, createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { buildApp } from './app.js';
import { configSchema } from './config.js';
import { compileTrust } from './domain/client-ip.js';
import { createEntranceReporter } from './clients/entrance-reporter.js';
import { startEventRelay } from './sockets/event-relay.js';
import { createEventStream, type EventStream } from './stream/event-stream.js';
import { createHub } from './sockets/hub.js';
import { createRealtimeMetrics } from './ops/realtime-metrics.js';
import { attachWebSocketServer } from './sockets/ws-server.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const rt = createRuntime('realtime', config);
  const metrics = createRealtimeMetrics(rt.metrics.registry);
  const hub = createHub({ maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES, metrics });
  // The blocking XREAD (or subscriber mode) needs its own connection; it retries forever.
  const subscriber = createRedis(config.REDIS_URL, rt.logger, {
    name: 'realtime-sub',
    forQueues: true,
  });
  let stream: EventStream | undefined;
  if (config.WS_RESUME) {
    stream = createEventStream({
      redis: rt.redis,
      reader: subscriber,
      redisPrefix: config.REDIS_PREFIX,
      logger: rt.logger,
      metrics,
    });
    stream.start(
      (entry) => {
        if (entry.data) hub.broadcast(entry.data, entry.id);
      },
      (frame) => hub.broadcast(frame),
    );
  } else {
    startEventRelay({
      subscriber,
      redisPrefix: config.REDIS_PREFIX,
      hub,
      logger: rt.logger,
      metrics,
    });
  }
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
    ...(stream && { following: () => stream.following }),
    trustProxy: config.TRUSTED_PROXIES,
  });
  // disconnect, not quit: with the offline queue on, QUIT would wait for Redis forever.
  await rt.serve(
    app,
    [
      {
        name: 'subscriber',
        close: () => {
          stream?.stop();
          subscriber.disconnect();
        },
      },
    ],
    (server) =>
      attachWebSocketServer(server, {
        hub,
        entrance,
        trust: compileTrust(config.TRUSTED_PROXIES),
        logger: rt.logger,
        pingIntervalMs: config.WS_PING_INTERVAL_MS,
        closeGraceMs: config.WS_CLOSE_GRACE_MS,
        maxConnectionsPerIp: config.WS_MAX_CONNECTIONS_PER_IP,
        stream,
        metrics,
      }),
  );
}

main().catch(exitOnStartupError('realtime'));
