// The kit's linked trace context (linked-context.ts) reads exactly as the API's own context
// after any sequence of sets and deletes, branching and past the point where it flattens.
import { describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, createContextKey, trace, type Context } from '@opentelemetry/api';
import { suppressTracing, isTracingSuppressed } from '@opentelemetry/core';
import fc from 'fast-check';
import { LinkedContext, MAX_LINKS } from '../src/linked-context.js';

const KEYS = ['a', 'b', 'c', 'd'].map((name) => createContextKey(`linked-context test ${name}`));

/**
 * One step: a set or a delete of a key, applied to the context made `from` steps back
 * (mostly the last one, so that chains grow past MAX_LINKS).
 */
const step = fc.record({
  from: fc.constantFrom(0, 0, 0, 0, 1, 2, 3),
  key: fc.nat(KEYS.length - 1),
  value: fc.option(fc.integer(), { nil: undefined }),
  deletes: fc.boolean(),
});

describe('LinkedContext', () => {
  it('reads like the API context after any sets and deletes, branching and flattening', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: MAX_LINKS, maxLength: 3 * MAX_LINKS }), (steps) => {
        // The same history on both: the API's contexts and linked ones on the same root.
        const api: Context[] = [ROOT_CONTEXT.setValue(KEYS[0]!, 'root')];
        const linked: Context[] = [new LinkedContext(ROOT_CONTEXT, KEYS[0]!, 'root')];
        for (const { from, key, value, deletes } of steps) {
          const at = Math.max(0, api.length - 1 - from);
          const k = KEYS[key]!;
          api.push(deletes ? api[at]!.deleteValue(k) : api[at]!.setValue(k, value));
          linked.push(deletes ? linked[at]!.deleteValue(k) : linked[at]!.setValue(k, value));
        }
        api.forEach((context, i) => {
          for (const k of KEYS) expect(linked[i]!.getValue(k)).toBe(context.getValue(k));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('becomes a context of its base kind past MAX_LINKS links, with the same values', () => {
    let context: Context = new LinkedContext(ROOT_CONTEXT, KEYS[0]!, 0);
    for (let i = 1; i < MAX_LINKS; i++) context = context.setValue(KEYS[i % 2]!, i);
    expect(context).toBeInstanceOf(LinkedContext);
    const flat = context.setValue(KEYS[2]!, 'last');
    expect(flat).not.toBeInstanceOf(LinkedContext);
    expect(flat.getValue(KEYS[0]!)).toBe(MAX_LINKS - 2);
    expect(flat.getValue(KEYS[1]!)).toBe(MAX_LINKS - 1);
    expect(flat.getValue(KEYS[2]!)).toBe('last');
  });

  it("holds the API's span and the SDK's suppression like the API's context", () => {
    const span = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 });
    const context = new LinkedContext(ROOT_CONTEXT, createContextKey('OpenTelemetry Context Key SPAN'), span);
    expect(trace.getSpan(context)).toBe(span);
    expect(isTracingSuppressed(context)).toBe(false);
    const suppressed = suppressTracing(context);
    expect(suppressed).toBeInstanceOf(LinkedContext);
    expect(isTracingSuppressed(suppressed)).toBe(true);
    expect(trace.getSpan(trace.deleteSpan(suppressed))).toBeUndefined();
    expect(trace.getSpan(suppressed)).toBe(span);
  });
});
