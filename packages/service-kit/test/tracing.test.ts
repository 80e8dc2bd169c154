// The tracing helpers with tracing off (nothing of OpenTelemetry loaded, every helper a no-op)
// and on (a span continuing the carried context, injected into carriers and log lines). Each
// case runs in its own process, as the SDK patches modules process-wide.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

async function run(env: Record<string, string>) {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _drop, ...inherited } = process.env;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'test/fixtures/tracing-helpers.ts'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...inherited, ...env } },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    ),
  );
  const lines = stdout.split('\n').filter((l) => l.startsWith('{"'));
  const json = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    result: json.find((l) => 'result' in l)!.result as {
      enabled: boolean;
      inside: { injected: Record<string, unknown>; current: string | null; fields: object };
      failed: string;
      otelModules: number;
      served: { traceparent: string | null; body: unknown; context: string | null };
      readings: Record<string, { kit: unknown; propagator: unknown; bypassed?: string }>;
      layers: number;
      idGenerator?: string;
    },
    logLine: json.find((l) => l.msg === 'inside a span')!,
    namedLine: json.find((l) => l.msg === 'ids named')!,
    carriedLine: json.find((l) => l.msg === 'ids carried')!,
    lines,
  };
}

describe('tracing', () => {
  /** The service app's router layers with tracing off (the first case sets it). */
  let layersOff = -1;
  it('off (no OTEL_EXPORTER_OTLP_ENDPOINT): nothing of OpenTelemetry is loaded and the helpers change nothing', async () => {
    const { result, logLine } = await run({});
    expect(result.enabled).toBe(false);
    layersOff = result.layers;
    expect(result.otelModules).toBe(0);
    expect(result.inside).toEqual({ injected: { a: 1 }, current: null, fields: {} });
    expect(result.failed).toBe('no');
    expect(logLine).not.toHaveProperty('trace_id');
    expect(result.served).toEqual({ traceparent: null, body: { x: 1 }, context: null });
  }, 30_000);

  it('on: the span continues the carried traceparent, carriers and log lines get its ids', async () => {
    // The console exporter: no receiver needed (its output is not JSON lines).
    const { result, logLine, namedLine, carriedLine, lines } = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_EXPORTER: 'console',
    });
    expect(result.enabled).toBe(true);
    expect(result.otelModules).toBeGreaterThan(0);
    const spanId = (result.inside.fields as { span_id: string }).span_id;
    expect(result.inside.fields).toEqual({
      trace_id: CALLER_TRACE,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // A child of the caller's span: same trace, its own span id.
    expect(spanId).not.toBe('00f067aa0ba902b7');
    expect(result.inside.current).toBe(`00-${CALLER_TRACE}-${spanId}-01`);
    expect(result.inside.injected).toEqual({ a: 1, traceparent: result.inside.current });
    expect(logLine).toMatchObject({ trace_id: CALLER_TRACE, span_id: spanId });
    // A line that names ids keeps them (the access log's, read when its request started).
    expect(namedLine).toMatchObject({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) });
    // Ids carried under TRACE_FIELDS (the access log's) replace the active span's, once each.
    expect(carriedLine).toMatchObject({ trace_id: 'c'.repeat(32), span_id: 'd'.repeat(16), n: 1 });
    // Every line names its ids at most once (JSON.parse would hide a repeated key).
    for (const line of lines) expect(line.split('"trace_id"').length).toBeLessThanOrEqual(2);
    expect(result.failed).toBe('no');
    // A service app's handler runs in its server span (the caller's child), even after the
    // body parser, which calls on from the request stream's 'end' event.
    const served = result.served.traceparent!;
    expect(served).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
    expect(served).not.toContain('00f067aa0ba902b7');
    expect(served).not.toBe(result.inside.current);
    expect(result.served.body).toEqual({ x: 1 });
    // Its context is the kit's chain of links, not the API's copied Map (linked-context.ts).
    expect(result.served.context).toBe('LinkedContext');
    // Ids come from the kit's pooled generator (trace-ids.ts), not the SDK's.
    expect(result.idGenerator).toBe('PooledIdGenerator');
    // The span is begun in the app's first middleware, not in a router layer of its own.
    expect(result.layers).toBe(layersOff);
    expect(result.layers).toBeGreaterThan(0);
  }, 30_000);

  it("on: the kit's reading of a request's trace headers agrees with the propagator's, and skips it only for the plain cases", async () => {
    const { result } = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_EXPORTER: 'console',
    });
    const { readings } = result;
    expect(Object.keys(readings)).toHaveLength(14);
    for (const [name, reading] of Object.entries(readings))
      expect({ name, context: reading.kit }).toEqual({ name, context: reading.propagator });
    // Read by the kit: a caller's version-00 traceparent alone; no headers at all (no span).
    for (const name of ['sampled', 'unsampled', 'otherFlags'])
      expect(readings[name]!.bypassed).toBe('ContextOnlySpan');
    expect(readings.sampled!.kit).toEqual({
      traceId: CALLER_TRACE,
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    });
    expect(readings.otherFlags!.kit).toMatchObject({ traceFlags: 0x0b });
    for (const name of [
      'none',
      'zeroTrace',
      'zeroSpan',
      'upperCase',
      'garbage',
      'truncated',
      'versionFf',
    ])
      expect(readings[name]!.kit).toBeUndefined();
    // Everything else is the propagator's (its own span class, the tracestate it parsed).
    for (const name of ['futureVersion', 'spaces', 'withState', 'withBaggage'])
      expect(readings[name]!.bypassed).toBe('NonRecordingSpan');
    expect(readings.withState!.kit).toMatchObject({ traceState: 'vendor=value' });
  }, 30_000);
});
