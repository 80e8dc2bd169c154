// The pure rules of ids and resume: parsing, ordering, the history check, the frames.
import { describe, expect, it } from '@jest/globals';
import { checkResume, compareEventIds, parseEventId } from '../src/domain/event-id.js';
import { eventFrame, resyncFrame, errorFrame } from '../src/domain/client-message.js';
import { RecentEvents } from '../src/domain/recent-events.js';

describe('event ids', () => {
  it('parses canonical stream ids only', () => {
    expect(parseEventId('1700000000000-3')).toBe('1700000000000-3');
    expect(parseEventId('0-0')).toBe('0-0');
    for (const bad of [
      null,
      undefined,
      '',
      'x',
      '1',
      '1-',
      '01-1',
      '1-01',
      '1-2-3',
      '-1-0',
      '1 -0',
    ])
      expect(parseEventId(bad)).toBeUndefined();
  });

  it('orders by milliseconds, then sequence, as numbers', () => {
    expect(compareEventIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareEventIds('10-0', '9-5')).toBeGreaterThan(0);
    expect(compareEventIds('5-9', '5-10')).toBeLessThan(0);
    expect(compareEventIds('5-10', '5-10')).toBe(0);
    expect(compareEventIds('1700000000001-0', '1700000000000-99')).toBeGreaterThan(0);
  });

  it('checks a resume id against the history', () => {
    // newest 100-0, everything up to 50-0 trimmed
    expect(checkResume('60-0', '100-0', '50-0')).toBe('ok');
    expect(checkResume('50-0', '100-0', '50-0')).toBe('ok'); // the next one is still there
    expect(checkResume('49-7', '100-0', '50-0')).toBe('expired');
    expect(checkResume('100-0', '100-0', '50-0')).toBe('ok');
    expect(checkResume('100-1', '100-0', '50-0')).toBe('future');
    expect(checkResume('1-0', '0-0', '0-0')).toBe('future'); // no stream at all
    expect(checkResume('0-0', '0-0', '0-0')).toBe('ok');
  });
});

describe('frames', () => {
  it('frames a stream entry as { id, event, payload } and drops junk', () => {
    expect(JSON.parse(eventFrame('5-1', '{"event":"like","payload":{"a":1}}')!)).toEqual({
      id: '5-1',
      event: 'like',
      payload: { a: 1 },
    });
    expect(eventFrame('5-1', 'nope')).toBeUndefined();
    expect(eventFrame('5-1', '{"event":"like"}')).toBeUndefined();
    expect(eventFrame('5-1', '{"event":"","payload":{}}')).toBeUndefined();
  });

  it('resync and error frames follow the contract', () => {
    expect(JSON.parse(resyncFrame())).toEqual({
      event: 'resync',
      payload: { reason: 'history_expired' },
    });
    expect(JSON.parse(errorFrame('bad'))).toEqual({ event: 'error', payload: { error: 'bad' } });
  });
});

describe('recent events (resumes served from memory)', () => {
  it('answers only within what it holds without a hole, and forgets the oldest past its bound', () => {
    const r = new RecentEvents<string>(3);
    expect(r.after('1-0', 10)).toBeUndefined(); // nothing known yet
    r.reset('5-0');
    expect(r.after('5-0', 10)).toEqual([]);
    for (const id of ['6-0', '6-1', '7-0']) r.push(id, `v${id}`);
    expect(r.after('5-0', 10)!.map((e) => e.id)).toEqual(['6-0', '6-1', '7-0']);
    expect(r.after('6-0', 1)).toEqual([{ id: '6-1', value: 'v6-1' }]);
    expect(r.after('7-0', 10)).toEqual([]);
    expect(r.after('4-9', 10)).toBeUndefined(); // before the floor: Redis decides
    expect(r.after('7-1', 10)).toBeUndefined(); // past the newest: Redis decides
    r.push('8-0', 'v8-0'); // 6-0 goes; the floor moves to it
    expect(r.size).toBe(3);
    expect(r.after('5-0', 10)).toBeUndefined();
    expect(r.after('6-0', 10)!.map((e) => e.id)).toEqual(['6-1', '7-0', '8-0']);
    for (let i = 9; i < 30; i++) r.push(`${i}-0`, `v${i}`);
    expect(r.after('26-0', 10)!.map((e) => e.id)).toEqual(['27-0', '28-0', '29-0']);
    expect(r.after('25-0', 10)).toBeUndefined();
    expect(r.size).toBe(3);
  });

  it('is bounded by bytes too: large events push the floor up', () => {
    const r = new RecentEvents<string>(100, 10, (v) => v.length);
    r.reset('0-0');
    r.push('1-0', 'aaaa');
    r.push('2-0', 'bbbb');
    expect(r.after('0-0', 10)!.map((e) => e.id)).toEqual(['1-0', '2-0']);
    r.push('3-0', 'cccc'); // 12 bytes > 10: 1-0 goes
    expect(r.size).toBe(2);
    expect(r.after('0-0', 10)).toBeUndefined();
    expect(r.after('1-0', 10)!.map((e) => e.id)).toEqual(['2-0', '3-0']);
    r.push('4-0', 'x'.repeat(50)); // larger than the bound alone: nothing is kept
    expect(r.size).toBe(0);
    expect(r.after('4-0', 10)).toEqual([]);
    expect(r.after('3-0', 10)).toBeUndefined();
  });
});
