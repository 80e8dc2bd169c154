// At most N open client connections per client address (the TCP peer), WebSocket tunnels
// included. A connection over the cap is answered 429 to its first request (HTTP or
// upgrade) and closed; it never reaches a service.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { normalizeIp } from '@svc/service-kit';
import type { TrustFn } from './client-ip.js';

/** Seconds a client refused for holding too many connections is told to wait. */
export const CAP_RETRY_AFTER_S = 5;

export interface ConnectionCap {
  /** The server's 'connection' listener: counts the socket, or marks it refused. */
  onConnection(socket: Socket): void;
  /** True when the socket was over its address's cap when it connected. */
  refused(socket: Duplex): boolean;
  /** Open connections counted for an address (tests, metrics). */
  openFrom(address: string): number;
}

/**
 * The cap, or undefined when `maxPerIp` is 0. Peers that TRUST_PROXY trusts are not
 * counted: a proxy in front carries many clients over its connections, and only it can
 * cap them per client (the client address of a request is known per request, not per
 * connection).
 */
export function createConnectionCap(maxPerIp: number, trust: TrustFn): ConnectionCap | undefined {
  if (maxPerIp === 0) return undefined;
  const open = new Map<string, number>();
  const refusedSockets = new Set<Duplex>();

  return {
    onConnection(socket) {
      const remote = socket.remoteAddress;
      // No address: the peer is already gone.
      if (remote === undefined || trust(remote, 0)) return;
      const key = normalizeIp(remote);
      const count = open.get(key) ?? 0;
      if (count >= maxPerIp) {
        refusedSockets.add(socket);
        socket.once('close', () => refusedSockets.delete(socket));
        return;
      }
      open.set(key, count + 1);
      socket.once('close', () => {
        const left = (open.get(key) as number) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      });
    },
    refused(socket) {
      return refusedSockets.size !== 0 && refusedSockets.has(socket);
    },
    openFrom(address) {
      return open.get(normalizeIp(address)) ?? 0;
    },
  };
}
