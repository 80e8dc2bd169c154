import { describe, expect, it } from '@jest/globals';
import { backoffCap, backoffDelay, parseRetryAfter, toWebSocketUrl } from '../src/index.js';

describe('backoff', () => {
  it('doubles the cap from the initial delay up to the maximum', () => {
    const caps = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffCap(n));
    expect(caps).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(backoffCap(3, { initialDelayMs: 100, factor: 3, maxDelayMs: 10_000 })).toBe(2700);
  });

  it('picks a delay anywhere between 0 and the cap (full jitter)', () => {
    expect(backoffDelay(2, {}, () => 0)).toBe(0);
    expect(backoffDelay(2, {}, () => 0.25)).toBe(500);
    expect(backoffDelay(2, {}, () => 0.9999)).toBe(1999);
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(4)));
    expect(spread.size).toBeGreaterThan(10);
    for (const d of spread) expect(d).toBeLessThan(8000);
  });
});

describe('small helpers', () => {
  it('reads both forms of Retry-After', () => {
    expect(parseRetryAfter('30')).toBe(30);
    const now = Date.parse('2026-11-22T00:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('derives the WebSocket URL from the base URL', () => {
    expect(toWebSocketUrl('https://svc.example/', '/api/ws')).toBe('wss://svc.example/api/ws');
    expect(toWebSocketUrl('http://127.0.0.1:8080', '/api/ws')).toBe('ws://127.0.0.1:8080/api/ws');
  });
});
