// Resume (docs/decisions/006-real-time-channel.md): a client that connects with `?last_event_id=<id>` gets every
// event after that id from the stream's history, in order, then the live events the hub held
// back meanwhile (hub.goLive dedupes the seam by id). The replay is paged and waits for each
// page to reach the socket, so a long gap never piles up in memory; a client too slow to take
// it is cut by the hub's bound on its held-back live events.
import type { WebSocket } from 'ws';
import { WS_CLOSE_BAD_RESUME } from '@svc/types';
import type { Logger } from '@svc/service-kit';
import { errorFrame, resyncFrame } from '../domain/client-message.js';
import type { EventStream } from '../stream/event-stream.js';
import type { Hub } from './hub.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';

/** Entries per history read. */
const PAGE = 500;
/** Close code when the history cannot be read (Redis down): 1013 Try Again Later. */
const CLOSE_TRY_AGAIN = 1013;

export const ERRORS = {
  malformed: 'last_event_id must be an event id like 1700000000000-0',
  future: 'last_event_id is newer than any event: reconnect without it and re-read',
};

/**
 * Sends a page of frames; resolves once the last was handed to the socket (or the socket is
 * gone). The TCP socket is corked for the page, so its frames leave in one write (writev)
 * instead of one syscall each: what makes a storm of thousands of replays cheap. `_socket`
 * is ws's (unexported) underlying net.Socket; without it the frames simply go one by one.
 */
function sendPage(ws: WebSocket, frames: Buffer[]): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState !== ws.OPEN || frames.length === 0) return resolve();
    const socket = (ws as unknown as { _socket?: { cork?(): void; uncork?(): void } })._socket;
    socket?.cork?.();
    for (let i = 0; i < frames.length - 1; i++) ws.send(frames[i]!, { binary: false });
    ws.send(frames[frames.length - 1]!, { binary: false }, () => resolve());
    socket?.uncork?.();
  });
}

export function refuseResume(ws: WebSocket, error: string): void {
  ws.send(errorFrame(error));
  ws.close(WS_CLOSE_BAD_RESUME, error.slice(0, 120));
}

export async function replay(
  ws: WebSocket,
  after: string,
  deps: { stream: EventStream; hub: Hub; logger: Logger; metrics: RealtimeMetrics },
): Promise<void> {
  let cursor = after;
  try {
    for (;;) {
      if (ws.readyState !== ws.OPEN) return;
      const page = await deps.stream.readAfter(cursor, PAGE);
      if (page.status === 'future') {
        deps.metrics.resumes.inc({ result: 'refused' });
        return refuseResume(ws, ERRORS.future);
      }
      if (page.status === 'expired') {
        deps.metrics.resumes.inc({ result: 'resync' });
        // Some events are gone: the client re-reads its lists; live events follow.
        ws.send(resyncFrame());
        break;
      }
      const frames: Buffer[] = [];
      for (const e of page.entries) {
        cursor = e.id;
        if (e.data) frames.push(e.data);
      }
      deps.metrics.eventsReplayed.inc(frames.length);
      await sendPage(ws, frames);
      if (page.entries.length < PAGE) {
        deps.metrics.resumes.inc({ result: 'replayed' });
        break;
      }
    }
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'replay failed: history unreadable');
    if (ws.readyState === ws.OPEN) ws.close(CLOSE_TRY_AGAIN, 'Try again later');
    return;
  }
  // The client has everything up to cursor (a malformed entry has a place but no frame).
  deps.hub.goLive(ws, cursor);
}
