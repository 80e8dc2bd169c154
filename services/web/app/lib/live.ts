// The page's one real-time connection (`/api/ws` through @svc/client's subscribe(), which
// reconnects with backoff). A module-level store shared by every component that needs it:
// the first component that mounts `useLiveConnection()` opens it (in the browser only, in
// an effect), the last one to unmount closes it. A reconnection resumes after the last
// event seen, so the missed events arrive as events; only when it cannot (a resync) are
// the callers of `useLiveConnection()` asked to re-read. Components listen with `useLiveEvent()`,
// read the connection state with `useLiveStatus()`, and read site patches (`site_update`)
// with `useLiveSite()`.
import type { RealtimeMessage, Subscription } from '@svc/client';
import type { Site } from '@svc/types';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { browserApi } from './api.client';

export type LiveStatus = 'off' | 'connecting' | 'open' | 'reconnecting';

type EventListener = (message: RealtimeMessage) => void;
type MissedListener = () => void;

let subscription: Subscription | undefined;
let users = 0;
let status: LiveStatus = 'off';
let patchVersion = 0;
const eventListeners = new Set<EventListener>();
const missedListeners = new Set<MissedListener>();
const statusListeners = new Set<() => void>();
/** Everything `site_update` told about a site since the page loaded (merged, newest last). */
const sitePatches = new Map<string, Partial<Site>>();

function setStatus(next: LiveStatus): void {
  if (next === status) return;
  status = next;
  for (const l of statusListeners) l();
}

function dispatch(message: RealtimeMessage): void {
  if (message.event === 'site_update') {
    const { id } = message.payload;
    sitePatches.set(id, { ...sitePatches.get(id), ...message.payload });
    patchVersion += 1;
  }
  for (const l of eventListeners) l(message);
}

function open(): void {
  if (subscription) return;
  setStatus('connecting');
  subscription = browserApi().subscribe({
    onEvent: dispatch,
    onOpen: () => setStatus('open'),
    onResync: () => {
      for (const l of missedListeners) l();
    },
    onReconnecting: () => setStatus('reconnecting'),
    onClose: ({ willReconnect }) => setStatus(willReconnect ? 'reconnecting' : 'off'),
  });
}

function close(): void {
  subscription?.close();
  subscription = undefined;
  setStatus('off');
}

/**
 * Keeps the connection open while the calling component is mounted (browser only).
 * `onMissed`: events were missed and cannot be replayed, so re-read what the page shows.
 */
export function useLiveConnection(onMissed?: MissedListener): void {
  const ref = useRef(onMissed);
  ref.current = onMissed;
  useEffect(() => {
    const listener = () => ref.current?.();
    missedListeners.add(listener);
    users += 1;
    open();
    return () => {
      missedListeners.delete(listener);
      users -= 1;
      if (users === 0) close();
    };
  }, []);
}

/** Calls `handler` for every event while mounted (the latest handler; no re-subscribing). */
export function useLiveEvent(handler: EventListener): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const listener: EventListener = (m) => ref.current(m);
    eventListeners.add(listener);
    return () => {
      eventListeners.delete(listener);
    };
  }, []);
}

function subscribeStatus(cb: () => void): () => void {
  statusListeners.add(cb);
  return () => statusListeners.delete(cb);
}

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    subscribeStatus,
    () => status,
    () => 'off',
  );
}

const patchListeners = new Set<() => void>();
eventListeners.add((m) => {
  if (m.event === 'site_update') for (const l of patchListeners) l();
});

function subscribePatches(cb: () => void): () => void {
  patchListeners.add(cb);
  return () => patchListeners.delete(cb);
}

/** The site with whatever `site_update` events said about it since (server render: as is). */
export function useLiveSite<T extends Site>(site: T): T {
  useSyncExternalStore(
    subscribePatches,
    () => patchVersion,
    () => 0,
  );
  const patch = sitePatches.get(site.id);
  return patch ? { ...site, ...patch } : site;
}
