// The local clients of this replica and how data reaches them. Every event is serialized
// once (the pub/sub payload is already JSON) and the same Buffer goes to every socket.
// A client whose unsent data would pass the bound is cut at once: memory stays bounded
// by clients × bound, whatever a slow reader does.
import type { WebSocket } from 'ws';
import { wouldOverflow } from './domain/send-bound.js';
import type { RealtimeMetrics } from './realtime-metrics.js';

interface ClientState {
  alive: boolean;
}

export interface HubOptions {
  maxBufferedBytes: number;
  metrics: RealtimeMetrics;
}

export function createHub(opts: HubOptions) {
  const clients = new Map<WebSocket, ClientState>();
  const { metrics } = opts;

  function drop(ws: WebSocket, reason: 'slow' | 'dead'): void {
    metrics.disconnects.inc({ reason });
    ws.terminate();
  }

  /** Sends unless that would pass the client's bound; false when the client was cut. */
  function send(ws: WebSocket, data: Buffer): boolean {
    if (ws.readyState !== ws.OPEN) return false;
    if (wouldOverflow(ws.bufferedAmount, data.length, opts.maxBufferedBytes)) {
      drop(ws, 'slow');
      return false;
    }
    ws.send(data, { binary: false });
    return true;
  }

  return {
    add(ws: WebSocket): void {
      clients.set(ws, { alive: true });
      metrics.connections.set(clients.size);
      metrics.connectionsOpened.inc();
      ws.on('pong', () => {
        const state = clients.get(ws);
        if (state) state.alive = true;
      });
      ws.once('close', () => {
        clients.delete(ws);
        metrics.connections.set(clients.size);
      });
    },

    /** Any sign of life (a pong, a message) keeps a client. */
    touch(ws: WebSocket): void {
      const state = clients.get(ws);
      if (state) state.alive = true;
    },

    send,

    broadcast(data: Buffer): number {
      const end = metrics.broadcastSeconds.startTimer();
      let delivered = 0;
      for (const ws of clients.keys()) if (send(ws, data)) delivered++;
      metrics.messagesDelivered.inc(delivered);
      end();
      return delivered;
    },

    /** One ping round: cut peers that did not answer the previous ping, ping the rest. */
    pingAll(): void {
      for (const [ws, state] of clients) {
        if (!state.alive) {
          drop(ws, 'dead');
          continue;
        }
        state.alive = false;
        ws.ping();
      }
    },

    /** Closes every client with `code`, waits up to `graceMs` for the handshakes, cuts the rest. */
    async closeAll(code: number, reason: string, graceMs: number): Promise<void> {
      const open = [...clients.keys()];
      const closed = open.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once('close', () => resolve());
          }),
      );
      for (const ws of open) ws.close(code, reason);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(closed),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      for (const ws of clients.keys()) ws.terminate();
    },

    get size(): number {
      return clients.size;
    },
  };
}
export type Hub = ReturnType<typeof createHub>;
