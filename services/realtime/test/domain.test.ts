// Pure rules of realtime: client messages, relayable events, the send bound, the
// entrance memo, the client IP behind the gateway, and the settings.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { clientIp, compileTrust } from '../src/domain/client-ip.js';
import { ConnectionCap } from '../src/domain/connection-cap.js';
import { isPing, isRelayableEvent } from '../src/domain/client-message.js';
import { stripTraceContext } from '../src/domain/event-envelope.js';
import { RecentIps } from '../src/domain/recent-ips.js';
import { wouldOverflow } from '../src/domain/send-bound.js';
import { configSchema } from '../src/config.js';

describe('client messages', () => {
  it('recognises only {"event":"ping"}', () => {
    expect(isPing('{"event":"ping"}')).toBe(true);
    expect(isPing('{"event":"ping","payload":{}}')).toBe(true);
    expect(isPing('{"event":"pong"}')).toBe(false);
    expect(isPing('ping')).toBe(false);
    expect(isPing('null')).toBe(false);
    expect(isPing('{')).toBe(false);
  });
  it('relays only {event: string, payload: object}', () => {
    expect(isRelayableEvent('{"event":"like","payload":{"messageId":"1"}}')).toBe(true);
    expect(isRelayableEvent('{"event":"like"}')).toBe(false);
    expect(isRelayableEvent('{"event":"","payload":{}}')).toBe(false);
    expect(isRelayableEvent('{"event":1,"payload":{}}')).toBe(false);
    expect(isRelayableEvent('{"event":"x","payload":null}')).toBe(false);
    expect(isRelayableEvent('[]')).toBe(false);
    expect(isRelayableEvent('nope')).toBe(false);
  });
});

describe('the trace context of an event', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  it('is taken off the envelope: clients get {event, payload} only', () => {
    const raw = JSON.stringify({ event: 'site_update', payload: { id: 'a' }, traceparent });
    const { message, trace } = stripTraceContext(raw);
    expect(JSON.parse(message)).toEqual({ event: 'site_update', payload: { id: 'a' } });
    expect(trace).toEqual({ traceparent, tracestate: undefined });
  });
  it('an envelope without one is relayed byte for byte', () => {
    const raw = '{"event":"like","payload":{"messageId":"1"}}';
    expect(stripTraceContext(raw)).toEqual({ message: raw });
  });
});

describe('wouldOverflow', () => {
  it('cuts when unsent bytes would pass the bound', () => {
    expect(wouldOverflow(0, 100, 1000)).toBe(false);
    expect(wouldOverflow(900, 100, 1000)).toBe(false);
    expect(wouldOverflow(901, 100, 1000)).toBe(true);
  });
  it('always lets one message onto an empty buffer', () => {
    expect(wouldOverflow(0, 5000, 1000)).toBe(false);
  });
});

describe('RecentIps', () => {
  it('claims an IP once per cooldown', () => {
    const r = new RecentIps(1000, 10);
    expect(r.claim('1.1.1.1', 0)).toBe(true);
    expect(r.claim('1.1.1.1', 999)).toBe(false);
    expect(r.claim('2.2.2.2', 999)).toBe(true);
    expect(r.claim('1.1.1.1', 1000)).toBe(true);
  });
  it('forgets a released claim', () => {
    const r = new RecentIps(1000, 10);
    r.claim('1.1.1.1', 0);
    r.release('1.1.1.1');
    expect(r.claim('1.1.1.1', 1)).toBe(true);
  });
  it('stays bounded, dropping the oldest entry', () => {
    const r = new RecentIps(1000, 3);
    for (const ip of ['a', 'b', 'c', 'd']) r.claim(ip, 0);
    expect(r.size).toBe(3);
    expect(r.claim('a', 1)).toBe(true); // evicted, so claimable again
    expect(r.claim('d', 1)).toBe(false);
  });
});

describe('clientIp', () => {
  const req = (remote: string, xff?: string) =>
    ({
      socket: { remoteAddress: remote },
      connection: { remoteAddress: remote },
      headers: xff ? { 'x-forwarded-for': xff } : {},
    }) as unknown as IncomingMessage;

  it('believes X-Forwarded-For only from a trusted proxy', () => {
    const trust = compileTrust('loopback, uniquelocal');
    expect(clientIp(req('127.0.0.1', '133.242.0.3'), trust)).toBe('133.242.0.3');
    expect(clientIp(req('203.0.113.9', '133.242.0.3'), trust)).toBe('203.0.113.9');
  });
  it('takes the right-most untrusted hop, so a client cannot spoof its address', () => {
    const trust = compileTrust('loopback');
    expect(clientIp(req('127.0.0.1', '6.6.6.6, 133.242.0.3'), trust)).toBe('133.242.0.3');
  });
  it('reports IPv4-mapped addresses as IPv4', () => {
    expect(clientIp(req('::ffff:198.51.100.4'), compileTrust(false))).toBe('198.51.100.4');
  });
});

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig(configSchema, {});
    expect(c.WS_PING_INTERVAL_MS).toBe(30_000);
    expect(c.WS_MAX_BUFFERED_BYTES).toBe(128 * 1024);
    expect(c.INTERNAL_TOKEN).toBeTruthy();
  });
  it('requires INTERNAL_TOKEN in production', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(/INTERNAL_TOKEN/);
  });
});

describe('ConnectionCap', () => {
  it('holds at most max slots per address, frees them one by one, keeps no empty entries', () => {
    const cap = new ConnectionCap(2);
    expect(cap.tryAcquire('a')).toBe(true);
    expect(cap.tryAcquire('a')).toBe(true);
    expect(cap.tryAcquire('a')).toBe(false);
    expect(cap.tryAcquire('b')).toBe(true);
    expect(cap.held('a')).toBe(2);
    cap.release('a');
    expect(cap.tryAcquire('a')).toBe(true);
    cap.release('a');
    cap.release('a');
    cap.release('b');
    expect(cap.addresses).toBe(0);
    cap.release('never-held'); // harmless
    expect(cap.addresses).toBe(0);
  });

  it('caps nothing with max 0', () => {
    const cap = new ConnectionCap(0);
    for (let i = 0; i < 1000; i++) expect(cap.tryAcquire('a')).toBe(true);
    expect(cap.held('a')).toBe(1000);
  });
});
