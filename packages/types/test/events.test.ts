import { describe, it, expect } from '@jest/globals';
import {
  ClientMessage,
  REDIS_EVENTS_CHANNEL,
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
