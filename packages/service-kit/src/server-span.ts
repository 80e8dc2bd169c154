// The span object of a server span (tracing.ts `startServerSpan`): a plain record that the
// SDK's own sampler, id generator and span processors handle like one of theirs. The SDK's
// `Span` does work a server span never needs: it validates and copies its attributes twice,
// records the SDK's self-metrics, reads two clocks and checks span limits, per request. On
// the gateway that was 8 µs of CPU per request under load, next to 35 for the whole proxying
// (bench/README.md, "Tracing"). Everything that decides what is exported (sampling, ids, the
// resource, the processors and their exporters) stays the SDK's: `spanPipelineOf` takes them
// from the SDK's tracer, and without them (another SDK version) server spans are the SDK's.
import type * as OtelApi from '@opentelemetry/api';
import type {
  Attributes,
  AttributeValue,
  Context,
  Exception,
  HrTime,
  Link,
  Span,
  SpanContext,
  SpanStatus,
  TimeInput,
} from '@opentelemetry/api';
import type {
  IdGenerator,
  ReadableSpan,
  Sampler,
  Span as SdkSpan,
  SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** @opentelemetry/core's time helpers (given, not imported: with tracing off none is loaded). */
export type SpanClock = Pick<
  typeof import('@opentelemetry/core'),
  'millisToHrTime' | 'addHrTimes' | 'timeInputToHrTime'
>;

/** What the SDK's tracer decides a span with: the pieces a server span borrows. */
export interface SpanPipeline {
  readonly sampler: Sampler;
  readonly ids: IdGenerator;
  readonly resource: ReadableSpan['resource'];
  readonly scope: ReadableSpan['instrumentationScope'];
  /** All the SDK's span processors (its multi-processor). */
  readonly processor: SpanProcessor;
  readonly clock: SpanClock;
}

/**
 * The SDK tracer's sampler, id generator, resource, scope and processors (fields of
 * `@opentelemetry/sdk-trace`'s Tracer, pinned in package.json); undefined when one is
 * missing, and the caller uses the tracer itself.
 */
export function spanPipelineOf(tracer: object, clock: SpanClock): SpanPipeline | undefined {
  const t = tracer as Record<string, unknown>;
  const sampler = t._sampler as Sampler | undefined;
  const ids = t._idGenerator as IdGenerator | undefined;
  const processor = t._spanProcessor as SpanProcessor | undefined;
  const resource = t._resource as SpanPipeline['resource'] | undefined;
  const scope = t.instrumentationScope as SpanPipeline['scope'] | undefined;
  if (
    typeof sampler?.shouldSample !== 'function' ||
    typeof ids?.generateSpanId !== 'function' ||
    typeof processor?.onEnd !== 'function' ||
    typeof resource?.attributes !== 'object' ||
    typeof scope?.name !== 'string'
  )
    return undefined;
  return { sampler, ids, processor, resource, scope, clock };
}

const SERVER = 1; // SpanKind.SERVER
const ERROR = 2; // SpanStatusCode.ERROR
const NONE: never[] = [];

/**
 * A recorded server span. Like the SDK's: the start is the wall clock (milliseconds), the
 * end the start plus the monotonic clock's duration; once ended it changes no more.
 */
export class ServerSpanRecord implements Span, ReadableSpan {
  readonly kind = SERVER;
  readonly resource: SpanPipeline['resource'];
  readonly instrumentationScope: SpanPipeline['scope'];
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  status: SpanStatus = { code: 0 };
  events: ReadableSpan['events'] = NONE;
  links: Link[] = NONE;
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly startedAt = performance.now();

  constructor(
    private readonly pipeline: SpanPipeline,
    public name: string,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly attributes: Attributes,
    parent: Context,
  ) {
    this.resource = pipeline.resource;
    this.instrumentationScope = pipeline.scope;
    this.startTime = pipeline.clock.millisToHrTime(Date.now());
    pipeline.processor.onStart(this as unknown as SdkSpan, parent);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (!this.ended && value !== undefined && value !== null) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key of Object.keys(attributes)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributes?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const timed =
      attributes instanceof Date || typeof attributes === 'number' || Array.isArray(attributes);
    if (this.events === NONE) this.events = [];
    this.events.push({
      name,
      time: this.pipeline.clock.timeInputToHrTime(
        (timed ? (attributes as TimeInput) : time) ?? Date.now(),
      ),
      attributes: timed ? undefined : (attributes as Attributes | undefined),
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links === NONE) this.links = [];
    this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final.
    if (!this.ended && status.code !== 0 && this.status.code !== 1)
      this.status =
        status.code === ERROR && status.message
          ? { code: ERROR, message: status.message }
          : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes['exception.type'] = String(type);
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  end(): void {
    if (this.ended) return;
    const { millisToHrTime, addHrTimes } = this.pipeline.clock;
    this.duration = millisToHrTime(performance.now() - this.startedAt);
    this.endTime = addHrTimes(this.startTime, this.duration);
    this.pipeline.processor.onEnding?.(this as unknown as SdkSpan);
    this.ended = true;
    this.pipeline.processor.onEnd(this);
  }
}

/**
 * A server span as the SDK's tracer would decide it (its `startSpan`): the caller's trace
 * continued or a new one, the sampler's decision, its trace state and attributes. Not
 * recorded: a context-only span that still carries the ids downstream.
 */
export function decideServerSpan(
  otel: typeof OtelApi,
  pipeline: SpanPipeline,
  name: string,
  attributes: Attributes,
  parent: Context,
): Span {
  const caller = otel.trace.getSpanContext(parent);
  const continued = caller !== undefined && otel.trace.isSpanContextValid(caller);
  const traceId = continued ? caller.traceId : pipeline.ids.generateTraceId();
  const spanId = pipeline.ids.generateSpanId();
  const decision = pipeline.sampler.shouldSample(parent, traceId, name, SERVER, attributes, []);
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: decision.decision === otel.SamplingDecision.RECORD_AND_SAMPLED ? 1 : 0,
    traceState: decision.traceState ?? (continued ? caller.traceState : undefined),
  };
  if (decision.decision === otel.SamplingDecision.NOT_RECORD)
    return otel.trace.wrapSpanContext(context);
  if (decision.attributes) Object.assign(attributes, decision.attributes);
  return new ServerSpanRecord(
    pipeline,
    name,
    context,
    continued ? caller : undefined,
    attributes,
    parent,
  );
}
