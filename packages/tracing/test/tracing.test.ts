// The tracing helpers off (nothing of the SDK loaded, every helper a no-op) and on (server
// spans, carried contexts, client spans, log fields), exported for real to a loopback OTLP
// receiver. Each case runs in its own process: the SDK and its instrumentations are
// process-wide.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOtlpReceiver, type ReceivedSpan } from '../src/testing.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const KIND = { server: 2, client: 3, consumer: 5 };
const ERROR = 2;

interface Fields {
  trace_id?: string;
  span_id?: string;
}
interface Answer {
  status: number;
  traceparent: string | null;
  fields: Fields;
}
interface Result {
  enabled: boolean;
  opentelemetry: number;
  sdk: boolean;
  requests: Record<
    'sampledCaller' | 'unsampledCaller' | 'knownRoute' | 'failing' | 'probe',
    Answer
  >;
  job: { injected: Record<string, unknown>; fields: Fields; later: Fields };
  failed: string;
  bound: Fields;
  afterStop: Record<string, unknown>;
}

async function run(env: Record<string, string>): Promise<Result> {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _drop, ...inherited } = process.env;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=development', 'test/fixtures/traced-process.ts'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...inherited, ...env } },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    ),
  );
  const line = stdout.split('\n').find((l) => l.startsWith('{"result"'));
  return (JSON.parse(line as string) as { result: Result }).result;
}

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('loads neither the SDK nor OpenTelemetry, and every helper changes nothing', async () => {
    const result = await run({});
    expect(result).toMatchObject({ enabled: false, opentelemetry: 0, sdk: false, failed: 'no' });
    for (const answer of Object.values(result.requests))
      expect(answer).toMatchObject({ traceparent: null, fields: {} });
    expect(result.job).toEqual({ injected: { a: 1 }, fields: {}, later: {} });
    expect(result.bound).toEqual({});
  }, 30_000);
});

describe('tracing on, OTLP/HTTP JSON', () => {
  let result: Result;
  let spans: ReceivedSpan[];
  const span = (id: string | undefined) => spans.find((s) => s.spanId === id) as ReceivedSpan;
  const childrenOf = (s: ReceivedSpan) => spans.filter((c) => c.parentSpanId === s.spanId);

  beforeAll(async () => {
    result = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
    spans = receiver.spans.filter((s) => s.service === 'tracing-test');
  }, 30_000);

  it('loads the SDK, and stopTracing exports what it held and turns the helpers off', () => {
    expect(result).toMatchObject({ enabled: true, sdk: true, afterStop: { b: 2 } });
    expect(result.opentelemetry).toBeGreaterThan(0);
    expect(spans.length).toBeGreaterThan(0);
  });

  it("continues a caller's sampled traceparent: server span, route, client spans, log ids", () => {
    const answer = result.requests.sampledCaller;
    const server = span(answer.fields.span_id);
    expect(server).toMatchObject({
      name: 'GET /items/:n',
      kind: KIND.server,
      traceId: TRACE,
      parentSpanId: CALLER_SPAN,
      scope: '@svc/tracing',
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/items/1',
        'http.route': '/items/:n',
        'http.response.status_code': 200,
      },
    });
    expect(answer.fields.trace_id).toBe(TRACE);
    // The handler's context is the span's: what it injects names the server span.
    expect(answer.traceparent).toBe(`00-${TRACE}-${server.spanId}-01`);
    // PostgreSQL and Redis client spans under it; Redis names the command only.
    const children = childrenOf(server);
    expect(children.every((c) => c.kind === KIND.client)).toBe(true);
    expect(children.some((c) => c.name.startsWith('pg.query'))).toBe(true);
    const redis = children.find((c) => c.name === 'get') as ReceivedSpan;
    expect(redis.attributes['db.query.text'] ?? redis.attributes['db.statement']).toBe('get');
  });

  it('follows an unsampled caller: ids in the answer and the log, nothing exported', () => {
    const answer = result.requests.unsampledCaller;
    expect(answer.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
    expect(answer.fields.trace_id).toBe(TRACE);
    expect(span(answer.fields.span_id)).toBeUndefined();
    expect(spans.filter((s) => s.attributes['url.path'] === '/items/2')).toEqual([]);
  });

  it('starts a new trace without a caller; a known route names the span at once; 5xx fails it', () => {
    const known = span(result.requests.knownRoute.fields.span_id);
    expect(known).toMatchObject({ name: 'GET /known/:n', parentSpanId: '' });
    expect(known.attributes['http.route']).toBe('/known/:n');
    expect(known.traceId).not.toBe(TRACE);
    const failing = span(result.requests.failing.fields.span_id);
    expect(failing).toMatchObject({ name: 'GET', status: ERROR, parentSpanId: '' });
    expect(failing.attributes['http.response.status_code']).toBe(500);
    expect(failing.attributes).not.toHaveProperty('http.route');
  });

  it('makes no span for a probe path, nor for a client call outside any trace', () => {
    expect(result.requests.probe).toMatchObject({ status: 200, traceparent: null, fields: {} });
    expect(spans.filter((s) => s.attributes['url.path'] === '/healthz')).toEqual([]);
    const roots = spans.filter((s) => s.parentSpanId === '').map((s) => s.name);
    expect(roots.sort()).toEqual(['GET', 'GET /known/:n', 'failing job']);
  });

  it('continues a carried context in a job span, and carries its own on', () => {
    const job = span(result.job.fields.span_id);
    expect(job).toMatchObject({
      name: 'test job',
      kind: KIND.consumer,
      traceId: TRACE,
      parentSpanId: CALLER_SPAN,
      attributes: { 'job.kind': 'test' },
    });
    expect(result.job.injected).toEqual({ a: 1, traceparent: `00-${TRACE}-${job.spanId}-01` });
    // Across an I/O callback the context stays the job's.
    expect(result.job.later).toEqual(result.job.fields);
    const failed = spans.find((s) => s.name === 'failing job') as ReceivedSpan;
    expect(result.failed).toBe('no');
    expect(failed.status).toBe(ERROR);
    expect(result.bound.span_id).toBe(spans.find((s) => s.name === 'binder')?.spanId);
  });
});

describe('tracing on, defaults', () => {
  it('exports OTLP/HTTP protobuf (the OTLP default), naming the process', async () => {
    const before = receiver.protobufBodies.length;
    await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const body = Buffer.concat(receiver.protobufBodies.slice(before));
    for (const text of ['tracing-test', 'GET /items/:n', 'test job'])
      expect(body.includes(text)).toBe(true);
  }, 30_000);

  it('samples new traces by OTEL_TRACES_SAMPLER and follows sampled callers', async () => {
    const before = receiver.spans.length;
    const result = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const names = receiver.spans.slice(before).map((s) => s.name);
    expect(names).toContain('GET /items/:n');
    expect(names).toContain('test job');
    expect(names).not.toContain('GET /known/:n');
    expect(result.requests.knownRoute.traceparent).toMatch(/-00$/);
  }, 30_000);
});
