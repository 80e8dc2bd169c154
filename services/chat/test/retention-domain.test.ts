// The retention rules on their own: the cutoff, how overdue the oldest message is, which audit
// targets retention removed, and the CHAT_RETENTION_DAYS setting (30 by default, at least 1).
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { configSchema } from '../src/config.js';
import {
  DEFAULT_RETENTION_DAYS,
  overdueSeconds,
  removedByRetention,
  retentionCutoff,
} from '../src/domain/retention.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');

describe('retention rules', () => {
  it('the cutoff is the retention days before now, to the millisecond', () => {
    expect(retentionCutoff(NOW, 30).toISOString()).toBe('2026-11-01T12:00:00.000Z');
    expect(retentionCutoff(NOW, 1).toISOString()).toBe('2026-11-30T12:00:00.000Z');
  });

  it('overdue seconds: how far the oldest message is past the cutoff, 0 when none is', () => {
    const cutoff = retentionCutoff(NOW, 30).getTime();
    expect(overdueSeconds(null, NOW, 30)).toBe(0);
    expect(overdueSeconds(new Date(cutoff + 1), NOW, 30)).toBe(0);
    expect(overdueSeconds(new Date(cutoff), NOW, 30)).toBe(0);
    expect(overdueSeconds(new Date(cutoff - 1500), NOW, 30)).toBe(1);
    expect(overdueSeconds(new Date(cutoff - 3600_000), NOW, 30)).toBe(3600);
  });

  it('an audit entry about a message that no longer exists was removed by retention', () => {
    const entries = [
      { targetType: 'message', targetId: 'gone' },
      { targetType: 'message', targetId: 'here' },
      { targetType: 'message', targetId: 'gone' },
      // a sender is not a message, whatever its id looks like
      { targetType: 'sender', targetId: 'ip:abc' },
    ];
    expect([...removedByRetention(entries, new Set(['here']))]).toEqual(['gone']);
    expect(removedByRetention(entries, new Set(['here', 'gone'])).size).toBe(0);
  });
});

describe('CHAT_RETENTION_DAYS', () => {
  it(`defaults to ${DEFAULT_RETENTION_DAYS} days`, () => {
    expect(DEFAULT_RETENTION_DAYS).toBe(30);
    expect(loadConfig(configSchema, {}).CHAT_RETENTION_DAYS).toBe(30);
    expect(loadConfig(configSchema, { CHAT_RETENTION_DAYS: '1' }).CHAT_RETENTION_DAYS).toBe(1);
    expect(loadConfig(configSchema, { CHAT_RETENTION_DAYS: '365' }).CHAT_RETENTION_DAYS).toBe(365);
  });

  it('refuses 0, negative, fractional and non-numeric values: there is no "off"', () => {
    for (const bad of ['0', '-1', '1.5', 'thirty', '3651'])
      expect(() => loadConfig(configSchema, { CHAT_RETENTION_DAYS: bad })).toThrow(
        /CHAT_RETENTION_DAYS/,
      );
  });
});
