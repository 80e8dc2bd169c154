// The events stream (REDIS_EVENTS_STREAM) → this replica. One blocking XREAD loop follows
// the stream in order and hands each entry, framed once as `{ id, event, payload }`, to the
// hub; `readAfter` pages through the history for clients that resume. The newest entries the
// loop read stay in memory (RecentEvents): a reconnect storm after a restart asks for the
// last few seconds, which are served from there, with no Redis call and no re-framing.
import { eventsStream, type Logger, type Redis } from '@svc/service-kit';
import { withExtractedContext } from '@svc/tracing';
import { stripTraceContext } from '../domain/event-envelope.js';
import { checkResume, type ResumeCheck } from '../domain/event-id.js';
import { RecentEvents } from '../domain/recent-events.js';
import { eventFrame, resyncFrame } from '../domain/client-message.js';
import type { RealtimeMetrics } from '../ops/realtime-metrics.js';

export interface StreamEntry {
  id: string;
  /** The client frame; undefined for a malformed entry (skipped, but it still has a place). */
  data: Buffer | undefined;
  /** The publisher's trace context (tracing on), never part of the frame. */
  trace?: { traceparent?: unknown; tracestate?: unknown };
}

export interface StreamPage {
  status: ResumeCheck;
  entries: StreamEntry[];
}

const READ_COUNT = 500;
/** Entries kept in memory for resumes: at most 5,000 and 8 MiB of frames. */
const RECENT_EVENTS = 5000;
const RECENT_BYTES = 8 * 1024 * 1024;
const BLOCK_MS = 5000;
/**
 * A read on the reader not back this long after it was sent (the XREAD's block included)
 * sits on a connection that went half-open: nothing else tells ioredis, and events would
 * stop reaching this replica's clients while every probe passes. The reader reconnects.
 */
const READ_DEADLINE_MS = BLOCK_MS + 5000;
const RETRY_MS = 500;

type XEntry = [string, string[]];

function toEntry([id, fields]: XEntry, metrics: RealtimeMetrics): StreamEntry {
  const raw = fields[1];
  const frame = raw === undefined ? undefined : eventFrame(id, raw);
  metrics.eventsReceived.inc({ result: frame ? 'relayed' : 'dropped' });
  const trace = raw === undefined ? undefined : stripTraceContext(raw).trace;
  return { id, data: frame === undefined ? undefined : Buffer.from(frame), trace };
}

/** XINFO STREAM's flat reply → the two ids resuming needs ("0-0" for a missing stream). */
function streamIds(reply: unknown): { lastId: string; maxDeletedId: string } {
  const ids = { lastId: '0-0', maxDeletedId: '0-0' };
  if (!Array.isArray(reply)) return ids;
  for (let i = 0; i + 1 < reply.length; i += 2) {
    if (reply[i] === 'last-generated-id') ids.lastId = String(reply[i + 1]);
    if (reply[i] === 'max-deleted-entry-id') ids.maxDeletedId = String(reply[i + 1]);
  }
  return ids;
}

export function createEventStream(deps: {
  /** For history reads (non-blocking commands). */
  redis: Redis;
  /** A dedicated connection for the blocking XREAD, offline queue on. */
  reader: Redis;
  redisPrefix: string;
  logger: Logger;
  metrics: RealtimeMetrics;
}) {
  const key = eventsStream(deps.redisPrefix);
  const recent = new RecentEvents<Buffer | undefined>(
    RECENT_EVENTS,
    RECENT_BYTES,
    (frame) => frame?.length ?? 0,
  );
  let stopped = false;
  let following = false;
  let connectedOnce = false;
  let recheck = false;
  // After a reconnect the replica may have missed entries that were trimmed meanwhile.
  deps.reader.on('ready', () => {
    if (connectedOnce) recheck = true;
    connectedOnce = true;
  });

  async function status(
    after: string,
    client: Redis,
  ): Promise<{ status: ResumeCheck; lastId: string }> {
    const reply = await client.call('XINFO', 'STREAM', key).catch((err: Error) => {
      if (/no such key/i.test(err.message)) return undefined;
      throw err;
    });
    const ids = streamIds(reply);
    return { status: checkResume(after, ids.lastId, ids.maxDeletedId), lastId: ids.lastId };
  }

  return {
    /**
     * Up to `count` entries after `after`, oldest first, and whether `after` is still
     * covered by the history. One MULTI: the check and the read see the same stream.
     */
    async readAfter(after: string, count: number): Promise<StreamPage> {
      const cached = recent.after(after, count);
      if (cached) {
        deps.metrics.historyReads.inc({ source: 'memory' });
        return { status: 'ok', entries: cached.map(({ id, value }) => ({ id, data: value })) };
      }
      deps.metrics.historyReads.inc({ source: 'redis' });
      const replies = await deps.redis
        .multi()
        .call('XINFO', 'STREAM', key)
        .xrange(key, `(${after}`, '+', 'COUNT', count)
        .exec();
      if (!replies) throw new Error('transaction aborted');
      const [[infoErr, info], [rangeErr, range]] = replies as [
        [Error | null, unknown],
        [Error | null, unknown],
      ];
      if (infoErr && !/no such key/i.test(infoErr.message)) throw infoErr;
      const ids = streamIds(infoErr ? undefined : info);
      const check = checkResume(after, ids.lastId, ids.maxDeletedId);
      if (check !== 'ok') return { status: check, entries: [] };
      if (rangeErr) throw rangeErr;
      return { status: 'ok', entries: (range as XEntry[]).map((e) => toEntry(e, deps.metrics)) };
    },

    /** Follows the stream from its current end, calling `onEntry` in order, until stop(). */
    start(onEntry: (entry: StreamEntry) => void, onGap: (frame: Buffer) => void): void {
      let cursor: string | undefined;
      // ioredis re-sends (or fails) what was pending once the reader has reconnected.
      const withinDeadline = async <T>(read: Promise<T>): Promise<T> => {
        const timer = setTimeout(() => {
          deps.logger.warn(
            { afterMs: READ_DEADLINE_MS },
            'events stream read stalled: reconnecting the reader',
          );
          deps.reader.disconnect(true);
        }, READ_DEADLINE_MS);
        try {
          return await read;
        } finally {
          clearTimeout(timer);
        }
      };
      const loop = async () => {
        while (!stopped) {
          try {
            if (cursor === undefined) {
              const newest = await withinDeadline(deps.reader.xrevrange(key, '+', '-', 'COUNT', 1));
              cursor = newest[0]?.[0] ?? '0-0';
              recent.reset(cursor);
              following = true;
            }
            const res = (await withinDeadline(
              deps.reader.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', key, cursor),
            )) as Array<[string, XEntry[]]> | null;
            if (recheck) {
              recheck = false;
              const s = await withinDeadline(status(cursor, deps.reader));
              if (s.status !== 'ok') {
                // Entries this replica never saw are gone (a long Redis outage) or Redis
                // lost its data: every client must re-read; follow from the newest entry.
                deps.logger.warn({ cursor, status: s.status }, 'events missed: resync sent');
                onGap(Buffer.from(resyncFrame()));
                if (s.status === 'future') {
                  cursor = s.lastId;
                  recent.reset(cursor);
                  continue;
                }
                // What follows in `res` is not contiguous with what is in memory.
                recent.reset(cursor);
              }
            }
            for (const [, entries] of res ?? []) {
              for (const e of entries) {
                cursor = e[0];
                const entry = toEntry(e, deps.metrics);
                recent.push(entry.id, entry.data);
                // The fan-out continues the publisher's trace (tracing on; else a plain call).
                withExtractedContext(entry.trace, 'realtime fan-out', () => onEntry(entry));
              }
            }
          } catch (err) {
            if (stopped) return;
            recheck = true;
            deps.logger.warn(
              { err: (err as Error).message },
              'events stream read failed; retrying',
            );
            await new Promise((r) => setTimeout(r, RETRY_MS));
          }
        }
      };
      void loop();
    },

    stop(): void {
      stopped = true;
    },

    /** The loop knows where the stream ends: every later event reaches the hub. */
    get following(): boolean {
      return following;
    },

    status,
  };
}
export type EventStream = ReturnType<typeof createEventStream>;
