// A service app's server span (server-spans.ts) and log ids (logger.ts, access-log.ts), with
// tracing on and off, each in its own process (the SDK is process-wide).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

async function run(env: Record<string, string>) {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _drop, ...inherited } = process.env;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'test/fixtures/traced-app.ts'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...inherited, ...env } },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    ),
  );
  const lines = stdout.split('\n').filter((l) => l.startsWith('{"'));
  const json = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = (msg: string) => json.find((l) => l.msg === msg) as Record<string, unknown>;
  return {
    ...(json.find((l) => 'result' in l)!.result as {
      enabled: boolean;
      served: { traceparent: string | null; body: unknown };
      layers: number;
    }),
    access: line('request'),
    handler: line('in handler'),
    outside: line('outside any request'),
    lines,
  };
}

describe('server spans in a service app', () => {
  let layersOff = -1;

  it('off: no span, no trace fields, the body parsed as ever', async () => {
    const off = await run({});
    layersOff = off.layers;
    expect(off.enabled).toBe(false);
    expect(off.served).toEqual({ traceparent: null, body: { x: 1 } });
    for (const line of [off.access, off.handler, off.outside])
      expect(line).not.toHaveProperty('trace_id');
  }, 30_000);

  it("on: the handler runs in the request's server span after the body parser; log lines name it", async () => {
    const on = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_EXPORTER: 'none',
    });
    expect(on.enabled).toBe(true);
    expect(on.served.body).toEqual({ x: 1 });
    // A child of the caller's span: same trace, the server span's own id.
    const [, traceId, spanId] = on.served.traceparent!.split('-');
    expect(traceId).toBe(CALLER_TRACE);
    expect(spanId).not.toBe('00f067aa0ba902b7');
    const ids = { trace_id: CALLER_TRACE, span_id: spanId };
    expect(on.access).toMatchObject({ ...ids, url: '/echo/1', status: 200 });
    expect(on.handler).toMatchObject(ids);
    expect(on.outside).not.toHaveProperty('trace_id');
    // Every line names its ids at most once (JSON.parse would hide a repeated key).
    for (const line of on.lines) expect(line.split('"trace_id"').length).toBeLessThanOrEqual(2);
    // The span is begun in the app's first middleware, not in a router layer of its own.
    expect(on.layers).toBe(layersOff);
  }, 30_000);
});
