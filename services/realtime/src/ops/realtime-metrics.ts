// realtime's own Prometheus series, on the kit's registry (served at /metrics).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export function createRealtimeMetrics(registry?: Registry) {
  const registers = registry ? [registry] : [];
  return {
    connections: new Gauge({
      name: 'realtime_connections',
      help: 'Open WebSocket connections',
      registers,
    }),
    connectionsOpened: new Counter({
      name: 'realtime_connections_opened_total',
      help: 'WebSocket connections accepted',
      registers,
    }),
    eventsReceived: new Counter({
      name: 'realtime_events_received_total',
      help: 'Events read from the events stream (or pub/sub with WS_RESUME=false), by whether they were relayed',
      labelNames: ['result'] as const,
      registers,
    }),
    messagesDelivered: new Counter({
      name: 'realtime_messages_delivered_total',
      help: 'Event messages handed to client sockets',
      registers,
    }),
    broadcastSeconds: new Histogram({
      name: 'realtime_broadcast_duration_seconds',
      help: 'Time to hand one event to every local client',
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
      registers,
    }),
    disconnects: new Counter({
      name: 'realtime_server_disconnects_total',
      help: 'Clients the server cut: slow (send buffer over the bound) or dead (missed a ping)',
      labelNames: ['reason'] as const,
      registers,
    }),
    resumes: new Counter({
      name: 'realtime_resumes_total',
      help: 'Connections with last_event_id, by result: replayed, resync (id older than the history), refused (malformed or future id)',
      labelNames: ['result'] as const,
      registers,
    }),
    historyReads: new Counter({
      name: 'realtime_history_reads_total',
      help: 'History pages read for resuming clients, by source: memory (recent events) or redis',
      labelNames: ['source'] as const,
      registers,
    }),
    eventsReplayed: new Counter({
      name: 'realtime_events_replayed_total',
      help: 'Events sent from the history to resuming clients',
      registers,
    }),
    entranceReports: new Counter({
      name: 'realtime_entrance_reports_total',
      help: 'Entrance reports to chat, by result',
      labelNames: ['result'] as const,
      registers,
    }),
  };
}
export type RealtimeMetrics = ReturnType<typeof createRealtimeMetrics>;
