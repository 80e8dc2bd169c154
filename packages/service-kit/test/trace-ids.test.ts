// The pooled trace and span ids (trace-ids.ts): W3C's shape, random, valid across refills.
import { describe, expect, it } from '@jest/globals';
import { PooledIdGenerator } from '../src/trace-ids.js';

describe('PooledIdGenerator', () => {
  it('gives 32-hex trace ids and 16-hex span ids, all different, across many refills of its pool', () => {
    const ids = new PooledIdGenerator();
    const seen = new Set<string>();
    // 4 KiB a pool: 3,000 of each kind (72,000 bytes) refill it 17 times, mid-id too.
    for (let i = 0; i < 3000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(6000);
  });

  it('uses every hex digit in every position (the bytes are random, not a counter)', () => {
    const ids = new PooledIdGenerator();
    const digits = Array.from({ length: 32 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...ids.generateTraceId()].forEach((c, p) => digits[p]!.add(c));
    for (const atPosition of digits) expect(atPosition.size).toBe(16);
  });

  it('never gives an all-zero id (invalid in W3C trace context): its last byte becomes 1', () => {
    const ids = new PooledIdGenerator();
    // The pool as the operating system might, once in 2^64 span ids, fill it.
    const inside = ids as unknown as { pool: Buffer; hex: string; offset: number };
    ids.generateSpanId();
    inside.pool.fill(0);
    inside.hex = inside.pool.toString('hex');
    inside.offset = 0;
    expect(ids.generateSpanId()).toBe('0000000000000001');
    expect(ids.generateTraceId()).toBe(`${'0'.repeat(30)}01`);
  });
});
