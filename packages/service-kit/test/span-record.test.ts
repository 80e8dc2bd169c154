// The kit's span records against the SDK's own spans: the same SDK tracer provider (sampler,
// ids, resource, processors) decides and exports both, and what reaches the exporter must
// read the same. Also guards the pinned SDK: `spanPipelineOf` reads fields of its Tracer.
import * as otel from '@opentelemetry/api';
import * as core from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  AlwaysOnSampler,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from '@jest/globals';
import {
  ContextOnlySpan,
  decideServerSpan,
  dropsChildrenOfUnsampled,
  followsParent,
  recordTracerProvider,
  SpanRecord,
  spanPipelineOf,
  type SpanPipeline,
} from '../src/span-record.js';

const CALLER = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: 1,
  isRemote: true,
};

function setUp(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    sampler,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('@svc/service-kit');
  const pipeline = spanPipelineOf(tracer, core) as SpanPipeline;
  // What the client instrumentations are given (tracing.ts).
  const records = recordTracerProvider(otel, provider, core);
  // The simple processor exports in a promise: the spans ended so far, once exported.
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { finished, tracer, pipeline, provider, records };
}

const callerContext = (flags = 1) =>
  otel.trace.setSpanContext(otel.ROOT_CONTEXT, { ...CALLER, traceFlags: flags });

/** The fields an exporter reads, times left out. */
function exported(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    traceFlags: span.spanContext().traceFlags,
    parent: span.parentSpanContext,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
    resource: span.resource,
    scope: span.instrumentationScope,
    ended: span.ended,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
}

describe('server spans', () => {
  it("finds the SDK tracer's sampler, ids, resource, scope and processors, and nothing in a stranger", () => {
    const { pipeline } = setUp();
    expect(pipeline).toBeDefined();
    expect(typeof pipeline.sampler.shouldSample).toBe('function');
    expect(pipeline.scope.name).toBe('@svc/service-kit');
    expect(spanPipelineOf({}, core)).toBeUndefined();
    expect(spanPipelineOf(otel.trace.getTracer('no sdk registered'), core)).toBeUndefined();
  });

  it("reaches the exporter as the SDK's own span of the same request does", async () => {
    const { finished, tracer, pipeline } = setUp();
    const attributes = () => ({ 'http.request.method': 'GET', 'url.path': '/api/v1/apps' });
    const sdkSpan = tracer.startSpan(
      'GET /api/v1',
      { kind: otel.SpanKind.SERVER, attributes: attributes() },
      callerContext(),
    );
    const before = Date.now();
    const ours = decideServerSpan(otel, pipeline, 'GET /api/v1', attributes(), callerContext());
    for (const span of [sdkSpan, ours]) {
      expect(span.isRecording()).toBe(true);
      span.setAttribute('http.response.status_code', 503);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'upstream down' });
      span.end();
    }
    const after = Date.now();
    const [theirs, mine] = await finished();
    expect(exported(mine!)).toEqual(exported(theirs!));
    expect(mine!.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(mine!.spanContext().spanId).not.toBe(theirs!.spanContext().spanId);
    // Wall-clock start (ms), end = start + the monotonic duration.
    const ms = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    expect(ms(mine!.startTime)).toBeGreaterThanOrEqual(before);
    expect(ms(mine!.endTime)).toBeLessThanOrEqual(after + 1);
    expect(ms(mine!.endTime) - ms(mine!.startTime)).toBeCloseTo(ms(mine!.duration), 3);
  });

  it('starts a new trace without a caller, and is recorded only as the sampler says', async () => {
    const root = setUp();
    const fresh = decideServerSpan(otel, root.pipeline, 'GET', {}, otel.ROOT_CONTEXT);
    expect(fresh.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.spanContext().traceId).not.toBe(CALLER.traceId);
    fresh.end();
    expect((await root.finished())[0]!.parentSpanContext).toBeUndefined();

    // The caller did not sample: parent-based sampling follows it, nothing is exported, and
    // the ids still go downstream (a non-recording span).
    const unsampled = decideServerSpan(otel, root.pipeline, 'GET', {}, callerContext(0));
    expect(unsampled.isRecording()).toBe(false);
    expect(unsampled.spanContext()).toMatchObject({ traceId: CALLER.traceId, traceFlags: 0 });
    unsampled.end();

    const off = setUp(new AlwaysOffSampler());
    const dropped = decideServerSpan(otel, off.pipeline, 'GET', {}, callerContext());
    expect(dropped.isRecording()).toBe(false);
    expect(dropped.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    dropped.end();
    expect(await root.finished()).toHaveLength(1);
    expect(await off.finished()).toHaveLength(0);
  });

  it("follows the SDK's rules for status, name, events and ending", async () => {
    const { finished: exported, pipeline } = setUp();
    const span = decideServerSpan(otel, pipeline, 'GET', {}, callerContext());
    span.setStatus({ code: otel.SpanStatusCode.UNSET });
    span.setStatus({ code: otel.SpanStatusCode.OK });
    span.setStatus({ code: otel.SpanStatusCode.ERROR, message: 'ignored: OK is final' });
    span.updateName('GET /api/v1/apps/:id');
    span.recordException(Object.assign(new Error('boom'), { code: 'E_BOOM' }));
    span.end();
    span.setAttribute('late', 1);
    span.updateName('late');
    span.end();
    const finished = await exported();
    expect(finished).toHaveLength(1);
    expect(finished[0]!.name).toBe('GET /api/v1/apps/:id');
    expect(finished[0]!.status).toEqual({ code: otel.SpanStatusCode.OK });
    expect(finished[0]!.attributes).toEqual({});
    expect(finished[0]!.events).toEqual([
      expect.objectContaining({
        name: 'exception',
        attributes: expect.objectContaining({
          'exception.type': 'E_BOOM',
          'exception.message': 'boom',
        }),
      }),
    ]);
  });
});

describe('client spans (the record tracer the instrumentations get)', () => {
  const SCOPE = ['@opentelemetry/instrumentation-ioredis', '0.72.0'] as const;
  const redisAttributes = () => ({
    'db.system.name': 'redis',
    'db.query.text': 'evalsha',
    'server.address': '127.0.0.1',
    'server.port': 6379,
  });

  it("reaches the exporter as the SDK's own client span does, with the instrumentation's scope", async () => {
    const { finished, provider, records } = setUp();
    const theirs = provider.getTracer(...SCOPE);
    const ours = records.getTracer(...SCOPE);
    const parent = callerContext();
    const spans = [theirs, ours].map((t) =>
      t.startSpan('evalsha', { kind: otel.SpanKind.CLIENT, attributes: redisAttributes() }, parent),
    );
    expect(spans[1]).toBeInstanceOf(SpanRecord);
    for (const span of spans) span.end();
    const [sdk, mine] = await finished();
    expect(exported(mine!)).toEqual(exported(sdk!));
    expect(mine!.instrumentationScope).toBe(sdk!.instrumentationScope);
    expect(mine!.parentSpanContext?.spanId).toBe(CALLER.spanId);
  });

  it('continues the given context, or starts a root when asked; passes through startActiveSpan', async () => {
    const { finished, records } = setUp();
    const tracer = records.getTracer(...SCOPE);
    const parent = otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
      ...CALLER,
      spanId: 'aaaaaaaaaaaaaaaa',
    });
    tracer.startSpan('child', {}, parent).end();
    tracer.startSpan('root', { root: true }, parent).end();
    const answer = tracer.startActiveSpan('active', {}, parent, (span) => {
      span.end();
      return 42;
    });
    expect(answer).toBe(42);
    const [child, root, active] = await finished();
    expect(child!.parentSpanContext?.spanId).toBe('aaaaaaaaaaaaaaaa');
    expect(child!.spanContext().traceId).toBe(CALLER.traceId);
    expect(child!.kind).toBe(otel.SpanKind.INTERNAL);
    expect(root!.parentSpanContext).toBeUndefined();
    expect(root!.spanContext().traceId).not.toBe(CALLER.traceId);
    expect(active!.parentSpanContext?.spanId).toBe('aaaaaaaaaaaaaaaa');
  });

  it("continues an unsampled server span's trace, unsampled, without recording", async () => {
    const { finished, pipeline, records } = setUp();
    const server = decideServerSpan(otel, pipeline, 'GET', {}, callerContext(0));
    expect(server).toBeInstanceOf(ContextOnlySpan);
    const inServer = otel.trace.setSpan(otel.ROOT_CONTEXT, server);
    // A client that passes trace context on (http) gets ids of its own for it.
    const http = records
      .getTracer('@opentelemetry/instrumentation-http', '0.301.0')
      .startSpan('GET', { kind: otel.SpanKind.CLIENT }, inServer);
    expect(http.isRecording()).toBe(false);
    expect(http.spanContext()).toMatchObject({ traceId: CALLER.traceId, traceFlags: 0 });
    expect(http.spanContext().spanId).not.toBe(server.spanContext().spanId);
    // A Redis or PostgreSQL command passes nothing on: it is given the server span itself,
    // nothing decided, and its end changes nothing.
    const redis = records.getTracer(...SCOPE).startSpan('evalsha', {}, inServer);
    expect(redis).toBe(server);
    for (const span of [redis, http]) span.end();
    server.end();
    expect(await finished()).toHaveLength(0);
  });

  it('gives a command its own span under a sampled parent, or where the sampler could record a child of an unsampled one', async () => {
    const sampled = setUp();
    const server = decideServerSpan(otel, sampled.pipeline, 'GET', {}, callerContext(1));
    const command = sampled.records
      .getTracer(...SCOPE)
      .startSpan('evalsha', {}, otel.trace.setSpan(otel.ROOT_CONTEXT, server));
    expect(command).toBeInstanceOf(SpanRecord);
    expect(command.spanContext().spanId).not.toBe(server.spanContext().spanId);

    // A parent-based sampler told to record children of unsampled parents.
    const recordsThem = setUp(
      new ParentBasedSampler({
        root: new AlwaysOnSampler(),
        remoteParentNotSampled: new AlwaysOnSampler(),
        localParentNotSampled: new AlwaysOnSampler(),
      }),
    );
    const unsampledServer = new ContextOnlySpan({ ...CALLER, spanId: 'bbbbbbbbbbbbbbbb', traceFlags: 0 });
    const child = recordsThem.records
      .getTracer(...SCOPE)
      .startSpan('evalsha', {}, otel.trace.setSpan(otel.ROOT_CONTEXT, unsampledServer));
    expect(child).toBeInstanceOf(SpanRecord);
    child.end();
    expect(await recordsThem.finished()).toHaveLength(1);
  });

  it('knows which samplers drop every child of an unsampled parent', () => {
    expect(dropsChildrenOfUnsampled(new AlwaysOffSampler())).toBe(true);
    expect(dropsChildrenOfUnsampled(new ParentBasedSampler({ root: new AlwaysOnSampler() }))).toBe(true);
    expect(
      dropsChildrenOfUnsampled(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) })),
    ).toBe(true);
    expect(dropsChildrenOfUnsampled(new AlwaysOnSampler())).toBe(false);
    expect(dropsChildrenOfUnsampled(new TraceIdRatioBasedSampler(0.1))).toBe(false);
    expect(
      dropsChildrenOfUnsampled(
        new ParentBasedSampler({ root: new AlwaysOnSampler(), localParentNotSampled: new AlwaysOnSampler() }),
      ),
    ).toBe(false);
    expect(
      dropsChildrenOfUnsampled(
        new ParentBasedSampler({ root: new AlwaysOnSampler(), remoteParentNotSampled: new AlwaysOnSampler() }),
      ),
    ).toBe(false);
  });

  it('knows which samplers follow the parent, and decides as they do without asking them', async () => {
    expect(followsParent(new ParentBasedSampler({ root: new AlwaysOnSampler() }))).toBe(true);
    expect(followsParent(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) }))).toBe(true);
    expect(followsParent(new AlwaysOnSampler())).toBe(false);
    expect(followsParent(new AlwaysOffSampler())).toBe(false);
    expect(
      followsParent(new ParentBasedSampler({ root: new AlwaysOnSampler(), remoteParentSampled: new AlwaysOffSampler() })),
    ).toBe(false);
    expect(
      followsParent(new ParentBasedSampler({ root: new AlwaysOnSampler(), localParentNotSampled: new AlwaysOnSampler() })),
    ).toBe(false);

    // Children of the kit's spans, sampled and not, decided as the SDK's own tracer does.
    const { finished, pipeline, tracer } = setUp();
    expect(pipeline.followsParent).toBe(true);
    for (const flags of [0, 1]) {
      const server = decideServerSpan(otel, pipeline, 'GET', {}, callerContext(flags));
      const inServer = otel.trace.setSpan(otel.ROOT_CONTEXT, server);
      const mine = decideServerSpan(otel, pipeline, 'GET /child', {}, inServer);
      const theirs = tracer.startSpan('GET /child', { kind: otel.SpanKind.SERVER }, inServer);
      expect(mine.isRecording()).toBe(theirs.isRecording());
      expect(mine.spanContext().traceFlags).toBe(theirs.spanContext().traceFlags);
      expect(mine.spanContext().traceId).toBe(CALLER.traceId);
      for (const span of [mine, theirs, server]) span.end();
    }
    expect((await finished()).map((s) => s.name)).toEqual(['GET /child', 'GET /child', 'GET']);

    // A sampler that would not follow a sampled parent is asked.
    const contrary = setUp(
      new ParentBasedSampler({ root: new AlwaysOnSampler(), localParentSampled: new AlwaysOffSampler() }),
    );
    expect(contrary.pipeline.followsParent).toBe(false);
    const server = decideServerSpan(otel, contrary.pipeline, 'GET', {}, callerContext(1));
    expect(server.isRecording()).toBe(true);
    const child = decideServerSpan(
      otel,
      contrary.pipeline,
      'GET /child',
      {},
      otel.trace.setSpan(otel.ROOT_CONTEXT, server),
    );
    expect(child.isRecording()).toBe(false);
  });

  it('makes nothing under suppressed tracing (an export\'s own request)', async () => {
    const { finished, records } = setUp();
    const span = records
      .getTracer(...SCOPE)
      .startSpan('POST', { kind: otel.SpanKind.CLIENT }, core.suppressTracing(callerContext()));
    expect(span.isRecording()).toBe(false);
    expect(otel.trace.isSpanContextValid(span.spanContext())).toBe(false);
    span.end();
    expect(await finished()).toHaveLength(0);
  });

  it('keeps given start and end times, and leaves out missing attribute values', async () => {
    const { finished, records } = setUp();
    const attributes = { 'db.system.name': 'redis', 'db.namespace': undefined };
    const span = records
      .getTracer(...SCOPE)
      .startSpan('get', { attributes, startTime: [1_700_000_000, 5] }, callerContext());
    span.end([1_700_000_001, 10]);
    const [mine] = await finished();
    expect(mine!.startTime).toEqual([1_700_000_000, 5]);
    expect(mine!.endTime).toEqual([1_700_000_001, 10]);
    expect(mine!.duration).toEqual([1, 5]);
    expect(Object.keys(mine!.attributes)).toEqual(['db.system.name']);
    expect(Object.keys(attributes)).toContain('db.namespace'); // the caller's object is unchanged
  });
});
