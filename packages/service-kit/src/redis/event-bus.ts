// Events for the real-time channel: any service appends `{ event, payload }` to one Redis
// Stream (docs/decisions/006-real-time-channel.md). The stream id of the entry is the event's id: one order,
// the same for every realtime replica, and a bounded history clients resume from. The same
// JSON (without id) is also published on the pub/sub channel for observers (tests, tools).
// With tracing on the JSON also carries the publisher's `traceparent`, which realtime strips
// before delivering (docs/decisions/015-tracing.md).
import type { Redis } from './redis.js';
import {
  EVENT_HISTORY_MAX_EVENTS,
  EVENT_HISTORY_MIN_AGE_MS,
  EVENT_HISTORY_MIN_EVENTS,
  REDIS_EVENTS_CHANNEL,
  REDIS_EVENTS_STREAM,
} from '@svc/types';
import { injectTraceContext } from '@svc/tracing';

export const EVENTS_CHANNEL = REDIS_EVENTS_CHANNEL;
export const EVENTS_STREAM = REDIS_EVENTS_STREAM;
/** The stream entry field holding the event JSON. */
export const EVENTS_STREAM_FIELD = 'm';

export const eventsChannel = (prefix: string) => `${prefix}${EVENTS_CHANNEL}`;
export const eventsStream = (prefix: string) => `${prefix}${EVENTS_STREAM}`;

export interface EventHistoryBounds {
  /** The newest this many entries are always kept. */
  minEvents: number;
  /** Entries younger than this are kept (up to maxEvents). */
  minAgeMs: number;
  /** Never more than this many, whatever their age (a memory bound). */
  maxEvents: number;
}

export const EVENT_HISTORY: EventHistoryBounds = {
  minEvents: EVENT_HISTORY_MIN_EVENTS,
  minAgeMs: EVENT_HISTORY_MIN_AGE_MS,
  maxEvents: EVENT_HISTORY_MAX_EVENTS,
};

/**
 * Append, publish, trim, in one atomic script. Trimming keeps an entry while it is one of
 * the newest `minEvents` or younger than `minAgeMs` (Redis clock), so it drops at most 64 of
 * the oldest entries per append (amortized O(1)); past `maxEvents` the oldest go whatever
 * their age (at most 1,000 per append). XDEL, not XTRIM: Redis 7 then records the highest
 * dropped id (XINFO max-deleted-entry-id), which realtime compares a resume id with to tell
 * "nothing lost" from "resync". Entries go oldest first, so whole stream nodes are freed.
 */
const APPEND_SCRIPT = `
local id = redis.call('XADD', KEYS[1], '*', ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
local keep = tonumber(ARGV[4])
local maxAge = tonumber(ARGV[5])
local cap = tonumber(ARGV[6])
local len = redis.call('XLEN', KEYS[1])
local n = 0
local upTo = '+'
if len > cap then
  n = math.min(len - cap, 1000)
elseif len > keep then
  local t = redis.call('TIME')
  local cutoff = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - maxAge
  if cutoff > 0 then
    n = math.min(len - keep, 64)
    upTo = string.format('%.0f', cutoff)
  end
end
if n > 0 then
  local old = redis.call('XRANGE', KEYS[1], '-', upTo, 'COUNT', n)
  if #old > 0 then
    local ids = {}
    for i, e in ipairs(old) do ids[i] = e[1] end
    redis.call('XDEL', KEYS[1], unpack(ids))
  end
end
return id
`;

export interface EventPublisher {
  /** Appends the event; resolves with its id. */
  publish(event: string, payload: unknown): Promise<string>;
}

type ScriptRedis = Redis & {
  svcAppendEvent?: (key: string, ...args: Array<string | number>) => Promise<string>;
};

export function createEventPublisher(
  redis: Redis,
  prefix: string,
  history: EventHistoryBounds = EVENT_HISTORY,
): EventPublisher {
  const r = redis as ScriptRedis;
  // defineCommand: EVALSHA with a fallback to EVAL once per connection.
  if (!r.svcAppendEvent) {
    redis.defineCommand('svcAppendEvent', { numberOfKeys: 1, lua: APPEND_SCRIPT });
  }
  const stream = eventsStream(prefix);
  const channel = eventsChannel(prefix);
  return {
    async publish(event, payload) {
      return r.svcAppendEvent!(
        stream,
        EVENTS_STREAM_FIELD,
        JSON.stringify(injectTraceContext({ event, payload })),
        channel,
        history.minEvents,
        history.minAgeMs,
        history.maxEvents,
      );
    },
  };
}
