// The real-time channel (`/api/ws`): one subscription that stays connected. It reconnects
// after drops with exponential backoff and jitter, treats close code 1012 (Service Restart)
// and the other "come back later" codes as a reason to reconnect, and detects a silent
// half-open connection with an application ping (docs/decisions/006-real-time-channel.md: `{event:"ping"}` → pong).
// It resumes: each reconnection asks for the events after the last id it saw
// (`?last_event_id=`), so a drop or a replica restart loses and repeats nothing; when it
// cannot resume (the server says `resync` or closes with 4400, or no event has arrived
// yet, so there is no id to resume from) onResync tells the caller to re-read.
import type { ServerMessage } from '@svc/types';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { toWebSocketUrl } from './query.js';

export const WS_PATH = '/api/ws';
/** The resume query parameter (@svc/types WS_RESUME_PARAM; copied: no runtime imports). */
export const WS_RESUME_PARAM = 'last_event_id';
/** The server refused the resume id (@svc/types WS_CLOSE_BAD_RESUME). */
export const WS_CLOSE_BAD_RESUME = 4400;

/** Events a subscriber sees (pong, resync and error are handled here). */
export type RealtimeMessage = Exclude<ServerMessage, { event: 'pong' | 'resync' | 'error' }>;

/**
 * What the subscription needs of a WebSocket. The default is the platform's global
 * (browsers, Node ≥ 22, Deno, Bun); pass another only where there is none.
 */
export type WebSocketConstructor = new (url: string) => object;

interface SocketLike {
  readyState: number;
  /** Binary frames as ArrayBuffer (the WHATWG default is Blob, which is read async). */
  binaryType?: string;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/**
 * Close codes after which the server expects the client back: going away (1001), no status
 * (1005), abnormal drop without a close frame (1006), internal error (1011), service restart
 * (1012), try again later (1013), bad gateway (1014). Others (1000 normal, 1008 policy,
 * 1009 too big, application 4xxx codes…) end the subscription unless `shouldReconnect`
 * says otherwise.
 */
export const RECONNECT_CLOSE_CODES: ReadonlySet<number> = new Set([
  1001, 1005, 1006, 1011, 1012, 1013, 1014,
]);

export interface SubscribeOptions extends BackoffOptions {
  /** Called for every event (new_message, site_update, like, message_deleted). */
  onEvent: (message: RealtimeMessage) => void;
  /**
   * Events may have been missed and cannot be replayed: re-read what you show. Called when
   * the server says so (`resync`: older than its history), and once a reconnection has
   * opened without a resume id (none received yet, or the server refused ours with 4400),
   * so a re-read then misses nothing. A reconnection that resumes does not call it: the
   * missed events arrive through onEvent.
   */
  onResync?: () => void;
  /** Resume after reconnecting (default true); false: live events only, as before ids. */
  resume?: boolean;
  /** Start after this event id (e.g. saved by a previous run). */
  lastEventId?: string;
  /** Connected (again); `reconnected` is false the first time. */
  onOpen?: (info: { reconnected: boolean }) => void;
  /** A connection closed; `willReconnect` tells whether another attempt follows. */
  onClose?: (info: { code: number; reason: string; willReconnect: boolean }) => void;
  /** A reconnection is scheduled: attempt number (1-based) and the delay chosen. */
  onReconnecting?: (info: { attempt: number; delayMs: number; code: number }) => void;
  /** A message that is not JSON `{ event, payload }`; ignored otherwise. */
  onInvalidMessage?: (data: unknown) => void;
  /** Overrides RECONNECT_CLOSE_CODES. */
  shouldReconnect?: (code: number) => boolean;
  /**
   * A connection that stayed open this long (ms) resets the backoff; one that drops sooner
   * counts as a failed attempt, so a server that accepts and at once closes (a crash loop)
   * is not hammered. Default 5000.
   */
  minUptimeMs?: number;
  /** Give up after this many consecutive failed attempts. Default: never. */
  maxAttempts?: number;
  /**
   * Keep-alive: every interval a ping is sent; if nothing at all arrived since the previous
   * ping, the connection is presumed dead and replaced. Default 25 000 ms; 0 disables.
   */
  heartbeatIntervalMs?: number;
  /** Only these event names reach onEvent. */
  events?: ReadonlyArray<RealtimeMessage['event']>;
  /** Defaults to globalThis.WebSocket; for a runtime without one. */
  WebSocket?: WebSocketConstructor;
  /** For tests: the randomness of the jitter. */
  random?: () => number;
}

export interface Subscription {
  /** Stops for good: closes the socket (1000) and cancels any pending reconnection. */
  close(): void;
  /** Resolves when the subscription has stopped (closed by you, or gave up). */
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly state: 'connecting' | 'open' | 'waiting' | 'closed';
  /** The id of the last event received: where the next connection resumes. */
  readonly lastEventId: string | undefined;
}

const OPEN = 1;
const HEARTBEAT_CLOSE_CODE = 4000;

export function subscribe(baseUrl: string, options: SubscribeOptions): Subscription {
  const Ctor =
    options.WebSocket ??
    (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ??
    undefined;
  if (!Ctor) {
    throw new TypeError(
      'No global WebSocket in this runtime (Node ≥ 22 and browsers have one): pass options.WebSocket',
    );
  }
  const url = toWebSocketUrl(baseUrl, WS_PATH);
  const resume = options.resume ?? true;
  let lastEventId = options.lastEventId;
  const urlNow = () =>
    resume && lastEventId
      ? `${url}${url.includes('?') ? '&' : '?'}${WS_RESUME_PARAM}=${encodeURIComponent(lastEventId)}`
      : url;
  const userShouldReconnect =
    options.shouldReconnect ?? ((code: number) => RECONNECT_CLOSE_CODES.has(code));
  // 4400: the resume id was refused; reconnect at once without it (handled in handleClose).
  const shouldReconnect = (code: number) =>
    (resume && code === WS_CLOSE_BAD_RESUME) || userShouldReconnect(code);
  const heartbeatMs = options.heartbeatIntervalMs ?? 25_000;
  const wanted = options.events ? new Set<string>(options.events) : undefined;

  let state: Subscription['state'] = 'connecting';
  let socket: SocketLike | undefined;
  let failures = 0;
  let openedAt: number | undefined;
  const minUptimeMs = options.minUptimeMs ?? 5_000;
  let everOpened = false;
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (resolveClosed = r));

  const stopHeartbeat = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
  };

  const finish = (code: number, reason: string) => {
    stopped = true;
    state = 'closed';
    stopHeartbeat();
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    resolveClosed({ code, reason });
  };

  // onerror stays a no-op: an 'error' can still follow (closing while connecting), and an
  // EventEmitter-based WebSocket would throw one that nobody listens to.
  const detach = (s: SocketLike) => {
    s.onopen = s.onmessage = null;
    s.onclose = null;
    s.onerror = () => undefined;
  };

  const handleClose = (code: number, reason: string) => {
    stopHeartbeat();
    socket = undefined;
    if (stopped) return;
    if (openedAt !== undefined && Date.now() - openedAt >= minUptimeMs) failures = 0;
    openedAt = undefined;
    const again =
      shouldReconnect(code) &&
      (options.maxAttempts === undefined || failures < options.maxAttempts);
    options.onClose?.({ code, reason, willReconnect: again });
    if (!again) return finish(code, reason);
    // The server's history does not know our id (it lost its data): start fresh. The next
    // connection then has no id, so it reports a resync once open.
    if (resume && code === WS_CLOSE_BAD_RESUME) lastEventId = undefined;
    const delayMs = backoffDelay(failures, options, options.random);
    failures += 1;
    state = 'waiting';
    options.onReconnecting?.({ attempt: failures, delayMs, code });
    retryTimer = setTimeout(connect, delayMs);
  };

  function connect(): void {
    retryTimer = undefined;
    if (stopped) return;
    state = 'connecting';
    let s: SocketLike;
    try {
      s = new Ctor!(urlNow()) as SocketLike;
    } catch {
      return handleClose(1006, 'connect failed');
    }
    socket = s;
    s.binaryType = 'arraybuffer';
    let heardSincePing = true;
    // A reconnection without an id starts at the live edge: what was published while we
    // were away is not replayed, so the caller re-reads (after the open, to miss nothing).
    const missedEvents = resume && everOpened && lastEventId === undefined;

    s.onopen = () => {
      state = 'open';
      openedAt = Date.now();
      options.onOpen?.({ reconnected: everOpened });
      everOpened = true;
      if (missedEvents) options.onResync?.();
      if (heartbeatMs > 0) {
        heartbeat = setInterval(() => {
          if (!heardSincePing) {
            // Half-open: no close frame will ever come, so drop this socket ourselves.
            detach(s);
            try {
              s.close(HEARTBEAT_CLOSE_CODE, 'heartbeat timeout');
            } catch {
              /* already closing */
            }
            return handleClose(1006, 'heartbeat timeout');
          }
          heardSincePing = false;
          if (s.readyState === OPEN) s.send(JSON.stringify({ event: 'ping' }));
        }, heartbeatMs);
      }
    };
    s.onmessage = (ev) => {
      heardSincePing = true;
      const message = decode(ev.data);
      if (!message) return options.onInvalidMessage?.(ev.data);
      if (message.event === 'pong' || message.event === 'error') return;
      if (message.event === 'resync') return options.onResync?.();
      // Every event moves the resume point, also those filtered out below.
      if (typeof message.id === 'string') lastEventId = message.id;
      if (wanted && !wanted.has(message.event)) return;
      options.onEvent(message as RealtimeMessage);
    };
    // An error is always followed by close; the close decides what happens next.
    s.onerror = () => undefined;
    s.onclose = (ev) => {
      detach(s);
      handleClose(ev.code, ev.reason);
    };
  }

  connect();

  return {
    close() {
      if (stopped) return;
      const s = socket;
      socket = undefined;
      if (s) {
        detach(s);
        try {
          s.close(1000, 'client closed');
        } catch {
          /* already closing */
        }
      }
      finish(1000, 'client closed');
    },
    closed,
    get state() {
      return state;
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}

function decode(data: unknown): { event: string; id?: unknown; payload?: unknown } | undefined {
  let text: string;
  if (typeof data === 'string') text = data;
  // The tag, not instanceof: the socket's ArrayBuffer may come from another realm.
  else if (
    ArrayBuffer.isView(data) ||
    Object.prototype.toString.call(data) === '[object ArrayBuffer]'
  ) {
    text = new TextDecoder().decode(data as ArrayBuffer);
  } else return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (
      value &&
      typeof value === 'object' &&
      typeof (value as { event?: unknown }).event === 'string'
    ) {
      return value as { event: string; payload?: unknown };
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}
