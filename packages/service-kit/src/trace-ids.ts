// Trace and span ids for the SDK (its `idGenerator`): slices of a pool of random bytes that
// is refilled 4 KiB at a time from the operating system's generator. The SDK's own
// generator writes four `Math.random()` words per id into a buffer and converts them: the
// two ids of a sampled server span were 12 % of its cost, and the gateway makes both for
// every request, sampled or not (bench/README.md, "Tracing"). Here the pool is converted to
// hex once per refill and an id is a slice of that text (no call into C++ per id: 155–178
// ns an id as a per-id `toString('hex')`, 52–56 as a slice), and the bytes are
// cryptographically random.
import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';

const POOL_BYTES = 4096;
const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;

export class PooledIdGenerator implements IdGenerator {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  /** The pool as lower-case hex, two characters a byte. */
  private hex = '';
  /** The next unused byte; at the end, the pool is refilled before use. */
  private offset = POOL_BYTES;

  generateTraceId(): string {
    return this.next(TRACE_ID_BYTES);
  }

  generateSpanId(): string {
    return this.next(SPAN_ID_BYTES);
  }

  /** `bytes` random bytes as lower-case hex, never all zeros (W3C: an invalid id). */
  private next(bytes: number): string {
    if (this.offset + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.hex = this.pool.toString('hex');
      this.offset = 0;
    }
    const start = this.offset;
    const end = start + bytes;
    this.offset = end;
    let zero = true;
    for (let i = start; i < end && zero; i++) zero = this.pool[i] === 0;
    // As the SDK's generator does: an all-zero id gets a last byte of 1.
    if (zero) return `${this.hex.slice(2 * start, 2 * end - 2)}01`;
    return this.hex.slice(2 * start, 2 * end);
  }
}
