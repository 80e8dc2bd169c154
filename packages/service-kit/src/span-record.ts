// The span object of every span the kit and the instrumentations make (tracing.ts): a plain
// record that the SDK's own sampler, id generator and span processors handle like one of
// theirs. The SDK's `Span` does work these spans never need: it validates and copies its
// attributes (a WeakSet and an entries array per span), records the SDK's self-metrics, reads
// two clocks and checks span limits. On the gateway that was 8 µs of CPU per request under
// load, next to 35 for the whole proxying; the app-store's Redis span cost as much again
// (bench/README.md, "Tracing"). Everything that decides what is exported (sampling, ids, the
// resource, the processors and their exporters) stays the SDK's: `spanPipelineOf` takes them
// from the SDK's tracer, and without them (another SDK version) spans are the SDK's.
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
  SpanKind,
  SpanStatus,
  TimeInput,
} from '@opentelemetry/api';
import type {
  IdGenerator,
  ReadableSpan,
  Sampler,
  SamplingResult,
  Span as SdkSpan,
  SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** @opentelemetry/core's time helpers (given, not imported: with tracing off none is loaded). */
export type SpanClock = Pick<
  typeof import('@opentelemetry/core'),
  'millisToHrTime' | 'addHrTimes' | 'timeInputToHrTime' | 'hrTimeDuration' | 'isTracingSuppressed'
>;

/** What the SDK's tracer decides a span with: the pieces a span record borrows. */
export interface SpanPipeline {
  readonly sampler: Sampler;
  readonly ids: IdGenerator;
  readonly resource: ReadableSpan['resource'];
  readonly scope: ReadableSpan['instrumentationScope'];
  /** All the SDK's span processors (its multi-processor). */
  readonly processor: SpanProcessor;
  readonly clock: SpanClock;
  /** The sampler samples a span with a parent exactly when the parent is (`followsParent`). */
  readonly followsParent: boolean;
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
  return { sampler, ids, processor, resource, scope, clock, followsParent: followsParent(sampler) };
}

const SERVER = 1; // SpanKind.SERVER
/** The decisions of the SDK's AlwaysOn and AlwaysOff samplers (SamplingDecision 2 and 0). */
const FOLLOW_SAMPLED = Object.freeze({ decision: 2 }) as SamplingResult;
const FOLLOW_UNSAMPLED = Object.freeze({ decision: 0 }) as SamplingResult;
const ERROR = 2; // SpanStatusCode.ERROR
const NONE: never[] = [];
// What a span holds until it ends or is given a status: shared, not allocated per span (a
// sampled request's spans stay alive for its whole duration, so every object they hold is
// copied by each scavenge that meets them). Replaced, never changed.
const NOT_ENDED = Object.freeze([0, 0]) as unknown as HrTime;
const NO_DURATION = Object.freeze([-1, -1]) as unknown as HrTime;
const UNSET: SpanStatus = Object.freeze({ code: 0 });

/**
 * A recorded span. Like the SDK's: the start is the wall clock (milliseconds), the end the
 * start plus the monotonic clock's duration, unless the caller gives either time; once ended
 * it changes no more.
 */
export class SpanRecord implements Span, ReadableSpan {
  readonly resource: SpanPipeline['resource'];
  readonly instrumentationScope: SpanPipeline['scope'];
  readonly startTime: HrTime;
  endTime: HrTime = NOT_ENDED;
  duration: HrTime = NO_DURATION;
  status: SpanStatus = UNSET;
  events: ReadableSpan['events'] = NONE;
  links: Link[] = NONE;
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  /** performance.now() at the start; undefined when the caller gave the start time. */
  private readonly startedAt: number | undefined;

  constructor(
    private readonly pipeline: SpanPipeline,
    readonly kind: SpanKind,
    public name: string,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly attributes: Attributes,
    parent: Context,
    links: Link[] = NONE,
    startTime?: TimeInput,
  ) {
    this.resource = pipeline.resource;
    this.instrumentationScope = pipeline.scope;
    if (links.length > 0) this.links = links.slice();
    if (startTime === undefined) {
      this.startedAt = performance.now();
      this.startTime = pipeline.clock.millisToHrTime(Date.now());
    } else this.startTime = pipeline.clock.timeInputToHrTime(startTime);
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

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    const { millisToHrTime, addHrTimes, timeInputToHrTime, hrTimeDuration } = this.pipeline.clock;
    if (endTime === undefined && this.startedAt !== undefined) {
      this.duration = millisToHrTime(performance.now() - this.startedAt);
      this.endTime = addHrTimes(this.startTime, this.duration);
    } else {
      this.endTime = endTime === undefined ? millisToHrTime(Date.now()) : timeInputToHrTime(endTime);
      // As the SDK: an end before the start is the start.
      if (this.endTime[0] < this.startTime[0] || (this.endTime[0] === this.startTime[0] && this.endTime[1] < this.startTime[1]))
        this.endTime = this.startTime;
      this.duration = hrTimeDuration(this.startTime, this.endTime);
    }
    this.pipeline.processor.onEnding?.(this as unknown as SdkSpan);
    this.ended = true;
    this.pipeline.processor.onEnd(this);
  }
}

/**
 * A span that is not recorded and only carries its ids downstream: the API's
 * `NonRecordingSpan`, but the kit's, so that its children know its ids are valid.
 */
export class ContextOnlySpan implements Span {
  constructor(private readonly context: SpanContext) {}
  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {}
  isRecording(): boolean {
    return false;
  }
  recordException(): void {}
}

/**
 * A span as the SDK's tracer would decide it (its `startSpan`): the caller's trace continued
 * or a new one, the sampler's decision, its trace state and attributes. Not recorded: a
 * context-only span that still carries the ids downstream. Tracing suppressed in `parent`
 * (an export's own request): an invalid context-only span, nothing sampled or exported.
 */
export function decideSpan(
  otel: typeof OtelApi,
  pipeline: SpanPipeline,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context,
  links: Link[] = NONE,
  startTime?: TimeInput,
): Span {
  if (pipeline.clock.isTracingSuppressed(parent))
    return otel.trace.wrapSpanContext(otel.INVALID_SPAN_CONTEXT);
  const parentSpan = otel.trace.getSpan(parent);
  const caller = parentSpan?.spanContext();
  // A parent made here has ids from the id generator or a checked `traceparent`: only a
  // caller's needs checking.
  const kitParent = parentSpan instanceof SpanRecord || parentSpan instanceof ContextOnlySpan;
  const continued = caller !== undefined && (kitParent || otel.trace.isSpanContextValid(caller));
  const traceId = continued ? caller.traceId : pipeline.ids.generateTraceId();
  const spanId = pipeline.ids.generateSpanId();
  // What a parent-based sampler would answer for a kit parent, without its checks of the
  // parent's ids again (two hex scans per span, the most of its cost: bench/README.md).
  const decision =
    kitParent && pipeline.followsParent
      ? (caller as SpanContext).traceFlags & 1
        ? FOLLOW_SAMPLED
        : FOLLOW_UNSAMPLED
      : pipeline.sampler.shouldSample(parent, traceId, name, kind, attributes, links);
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: decision.decision === otel.SamplingDecision.RECORD_AND_SAMPLED ? 1 : 0,
    traceState: decision.traceState ?? (continued ? caller.traceState : undefined),
  };
  if (decision.decision === otel.SamplingDecision.NOT_RECORD) return new ContextOnlySpan(context);
  if (decision.attributes) Object.assign(attributes, decision.attributes);
  return new SpanRecord(
    pipeline,
    kind,
    name,
    context,
    continued ? caller : undefined,
    attributes,
    parent,
    links,
    startTime,
  );
}

/** A server span (tracing.ts `startServerSpan`): `decideSpan` of kind SERVER. */
export function decideServerSpan(
  otel: typeof OtelApi,
  pipeline: SpanPipeline,
  name: string,
  attributes: Attributes,
  parent: Context,
): Span {
  return decideSpan(otel, pipeline, name, SERVER, attributes, parent);
}

/**
 * A tracer whose spans are `SpanRecord`s, for the client instrumentations (pg, ioredis,
 * undici, http): given to each with `setTracerProvider`, so a Redis command's span costs
 * what a server span does. Its pipeline is that of the SDK tracer the instrumentation would
 * have had (`recordTracerProvider`), so the span's scope is unchanged.
 */
export class RecordTracer implements OtelApi.Tracer {
  /** See `recordTracerProvider`: a child of an unsampled kit span is that span itself. */
  private readonly parentWhenUnsampled: boolean;

  constructor(
    private readonly otel: typeof OtelApi,
    private readonly pipeline: SpanPipeline,
    propagatesNothing = false,
  ) {
    this.parentWhenUnsampled = propagatesNothing && dropsChildrenOfUnsampled(pipeline.sampler);
  }

  startSpan(name: string, options: OtelApi.SpanOptions = {}, context?: Context): Span {
    const otel = this.otel;
    let parent = context ?? otel.context.active();
    if (options.root) parent = otel.trace.deleteSpan(parent);
    else if (this.parentWhenUnsampled) {
      const parentSpan = otel.trace.getSpan(parent);
      if (parentSpan instanceof ContextOnlySpan && (parentSpan.spanContext().traceFlags & 1) === 0)
        return parentSpan;
    }
    // The instrumentations hand over a fresh object per span: it becomes the record's own
    // (copied only when it holds missing values, which the SDK would leave out too).
    let attributes = options.attributes ?? {};
    for (const key in attributes)
      if (attributes[key] == null) {
        attributes = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v != null));
        break;
      }
    return decideSpan(
      otel,
      this.pipeline,
      name,
      options.kind ?? otel.SpanKind.INTERNAL,
      attributes,
      parent,
      options.links,
      options.startTime,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...args: unknown[]
  ): ReturnType<F> {
    const fn = args[args.length - 1] as F;
    const options = (args.length > 1 ? args[0] : undefined) as OtelApi.SpanOptions | undefined;
    const context = (args.length > 2 ? args[1] : undefined) as Context | undefined;
    const otel = this.otel;
    const parent = context ?? otel.context.active();
    const span = this.startSpan(name, options, parent);
    const run = fn as (s: Span) => ReturnType<F>;
    return otel.context.with(otel.trace.setSpan(parent, span), run, undefined, span);
  }
}

/**
 * The instrumentations whose spans no one downstream sees: a database call passes no trace
 * context on, so its span's ids matter only if it is recorded.
 */
const PROPAGATE_NOTHING = new Set([
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-ioredis',
]);

/**
 * Whether `sampler` never records a child of an unsampled parent: always-off, or the SDK's
 * parent-based sampler with its defaults for unsampled parents (`parentbased_*`, the
 * OTEL_TRACES_SAMPLER this project documents). Read from the SDK samplers' descriptions.
 */
export function dropsChildrenOfUnsampled(sampler: Sampler): boolean {
  const text = sampler.toString();
  return (
    text === 'AlwaysOffSampler' ||
    (text.startsWith('ParentBased{') &&
      text.includes('remoteParentNotSampled=AlwaysOffSampler,') &&
      text.endsWith('localParentNotSampled=AlwaysOffSampler}'))
  );
}

/** The SDK's parent-based sampler's delegates for parents, as its `toString` names them. */
const DEFAULT_PARENT_DELEGATES =
  ', remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler,' +
  ' localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}';

/**
 * Whether `sampler` is the SDK's parent-based sampler with its default delegates for every
 * parent (any `parentbased_*` OTEL_TRACES_SAMPLER): a span with a valid parent is then
 * sampled exactly when its parent is, and only the root sampler decides anything.
 */
export function followsParent(sampler: Sampler): boolean {
  const text = sampler.toString();
  return text.startsWith('ParentBased{') && text.endsWith(DEFAULT_PARENT_DELEGATES);
}

/**
 * `RecordTracer`s over the SDK provider's tracers (the SDK's own tracer where no pipeline is
 * found). For pg and ioredis, a command under an unsampled request is given the request's
 * own context-only span: the sampler would drop it anyway, and its fresh ids (two random
 * numbers, a hex string, the sampler's call) would reach no one. Most requests are not
 * sampled in a busy production (bench/README.md, "Tracing").
 */
export function recordTracerProvider(
  otel: typeof OtelApi,
  sdkProvider: OtelApi.TracerProvider,
  clock: SpanClock,
): OtelApi.TracerProvider {
  return {
    getTracer(name, version, options) {
      const sdkTracer = sdkProvider.getTracer(name, version, options);
      const pipeline = spanPipelineOf(sdkTracer, clock);
      return pipeline ? new RecordTracer(otel, pipeline, PROPAGATE_NOTHING.has(name)) : sdkTracer;
    },
  };
}
