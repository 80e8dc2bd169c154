// The local clients of this replica and how data reaches them. Every event is serialized
// once and the same Buffer goes to every socket. A client whose unsent data would pass the
// bound is cut at once: memory stays bounded by clients × bound, whatever a slow reader does.
// A resuming client is replayed its missed events first; live events meanwhile wait in its
// `pending` list (under the same bound) and go out after the replay, minus those it already
// got (dedupe by id), so the seam has no gap and no duplicate.
import type { WebSocket } from 'ws';
import { compareEventIds } from '../domain/event-id.js';
import { wouldOverflow } from '../domain/send-bound.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';

interface ClientState {
  alive: boolean;
  /** While replaying: live events held back, oldest first. */
  pending?: Array<{ id: string; data: Buffer }>;
  pendingBytes: number;
  /** After a replay: live events up to this id were already sent. */
  skipThrough?: string;
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
    /** `resuming`: live events wait until goLive (the replay is sent first). */
    add(ws: WebSocket, resuming = false): void {
      clients.set(ws, { alive: true, pendingBytes: 0, ...(resuming && { pending: [] }) });
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

    /** One event to every client; `id` undefined for frames outside the stream (resync). */
    broadcast(data: Buffer, id?: string): number {
      const end = metrics.broadcastSeconds.startTimer();
      let delivered = 0;
      for (const [ws, state] of clients) {
        // A cut client stays listed until its 'close' event: without this, every event of the
        // same XREAD batch would cut (and count) a held-back client again.
        if (ws.readyState !== ws.OPEN) continue;
        if (state.pending && id !== undefined) {
          state.pending.push({ id, data });
          state.pendingBytes += data.length;
          if (state.pendingBytes > opts.maxBufferedBytes) drop(ws, 'slow');
          continue;
        }
        if (state.skipThrough !== undefined && id !== undefined) {
          if (compareEventIds(id, state.skipThrough) <= 0) continue;
          state.skipThrough = undefined;
        }
        if (send(ws, data)) delivered++;
      }
      metrics.messagesDelivered.inc(delivered);
      end();
      return delivered;
    },

    /**
     * The replay of `ws` is done up to `sentThrough` (the last id it sent; undefined: none):
     * the held-back live events after it go out, and later duplicates are skipped.
     */
    goLive(ws: WebSocket, sentThrough: string | undefined): void {
      const state = clients.get(ws);
      if (!state?.pending) return;
      const pending = state.pending;
      state.pending = undefined;
      state.pendingBytes = 0;
      let last = sentThrough;
      for (const { id, data } of pending) {
        if (last !== undefined && compareEventIds(id, last) <= 0) continue;
        if (!send(ws, data)) return;
        metrics.messagesDelivered.inc();
        last = id;
      }
      state.skipThrough = last;
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
