// The kit's server span object against the SDK's own: the same SDK tracer provider (sampler,
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
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from '@jest/globals';
import { decideServerSpan, spanPipelineOf, type SpanPipeline } from '../src/server-span.js';

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
  // The simple processor exports in a promise: the spans ended so far, once exported.
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { finished, tracer, pipeline };
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
