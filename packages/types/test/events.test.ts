import { describe, it, expect } from '@jest/globals';
import {
  ClientMessage,
  EVENT_HISTORY_MIN_AGE_MS,
  EVENT_HISTORY_MIN_EVENTS,
  EventId,
  REDIS_EVENTS_CHANNEL,
  WS_RESUME_PARAM,
  RealtimeEvent,
  ServerMessage,
} from '../src/events.js';
import { message } from './fixtures.js';

describe('realtime events', () => {
  it('uses the svc:events channel', () => {
    expect(REDIS_EVENTS_CHANNEL).toBe('svc:events');
  });

  it('parses the three broadcast events', () => {
    expect(RealtimeEvent.safeParse({ event: 'new_message', payload: message }).success).toBe(true);
    expect(
      RealtimeEvent.safeParse({
        event: 'site_update',
        payload: { id: 's1', title: 'T', tags: ['工具'] },
      }).success,
    ).toBe(true);
    expect(
      RealtimeEvent.safeParse({
        event: 'like',
        payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' },
      }).success,
    ).toBe(true);
  });

  it('rejects bad payloads and unknown events', () => {
    expect(
      RealtimeEvent.safeParse({ event: 'site_update', payload: { title: 'no id' } }).success,
    ).toBe(false);
    expect(
      RealtimeEvent.safeParse({ event: 'site_update', payload: { id: 's1', tags: ['x'] } }).success,
    ).toBe(false);
    expect(RealtimeEvent.safeParse({ event: 'new_message', payload: { id: 'm1' } }).success).toBe(
      false,
    );
    expect(RealtimeEvent.safeParse({ event: 'like', payload: { messageId: 'm1' } }).success).toBe(
      false,
    );
    expect(RealtimeEvent.safeParse({ event: 'pong', payload: {} }).success).toBe(false);
    expect(RealtimeEvent.safeParse({ event: 'typing', payload: {} }).success).toBe(false);
  });

  it('ping / pong', () => {
    expect(ClientMessage.safeParse({ event: 'ping' }).success).toBe(true);
    expect(ClientMessage.safeParse({ event: 'new_message', payload: message }).success).toBe(false);
    expect(ServerMessage.safeParse({ event: 'pong', payload: {} }).success).toBe(true);
    expect(
      ServerMessage.safeParse({
        event: 'like',
        payload: { messageId: 'm1', fromUser: 'a', toUser: 'b' },
      }).success,
    ).toBe(true);
  });
});

describe('event ids and resume messages', () => {
  it('accepts canonical stream ids only', () => {
    for (const ok of ['0-0', '1700000000000-0', '1700000000000-12', '18446744073709551615-1'])
      expect(EventId.safeParse(ok).success).toBe(true);
    for (const bad of [
      '',
      '1',
      '01-0',
      '1-01',
      '1-',
      '-1',
      'abc',
      '1-2-3',
      ' 1-0',
      '1.5-0',
      '123456789012345678901-0',
    ])
      expect(EventId.safeParse(bad).success).toBe(false);
  });

  it('server events may carry an id; resync and error are server messages', () => {
    expect(
      ServerMessage.safeParse({ id: '5-0', event: 'site_update', payload: { id: 's1' } }).success,
    ).toBe(true);
    expect(ServerMessage.safeParse({ event: 'site_update', payload: { id: 's1' } }).success).toBe(
      true,
    );
    expect(
      ServerMessage.safeParse({ id: 'x', event: 'site_update', payload: { id: 's1' } }).success,
    ).toBe(false);
    expect(
      ServerMessage.safeParse({ event: 'resync', payload: { reason: 'history_expired' } }).success,
    ).toBe(true);
    expect(ServerMessage.safeParse({ event: 'error', payload: { error: 'bad id' } }).success).toBe(
      true,
    );
    expect(WS_RESUME_PARAM).toBe('last_event_id');
    expect(EVENT_HISTORY_MIN_EVENTS).toBeGreaterThanOrEqual(10_000);
    expect(EVENT_HISTORY_MIN_AGE_MS).toBeGreaterThanOrEqual(600_000);
  });
});
