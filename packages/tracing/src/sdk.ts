// The OpenTelemetry SDK as this system runs it, through public APIs only: the trace SDK's
// provider, sampler and batch processor, the OTLP/HTTP exporters, the W3C trace-context
// propagator, an AsyncLocalStorage context manager and the maintained instrumentations of
// the clients (pg, ioredis, undici/fetch, node:http requests). Loaded by `startTracing`
// only when OTEL_EXPORTER_OTLP_ENDPOINT is set (index.ts).
//
// Server spans are made here (`startServerSpan`), not by the http instrumentation's incoming
// side or the express one: those wrap every request, response and listener whether sampled
// or not. We own both request entries (the gateway's handler, the kit's first middleware).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';
import {
  context,
  diag,
  DiagConsoleLogger,
  DiagLogLevel,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { diagLogLevelFromString, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** The client libraries whose maintained instrumentations make spans of their calls. */
export type TracedClient = 'pg' | 'ioredis' | 'undici' | 'http';
export const ALL_CLIENTS: readonly TracedClient[] = ['pg', 'ioredis', 'undici', 'http'];

/** The W3C trace context fields carried in an outbox row, a job's data or an event. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The route of a request: known at its start (the gateway's table), or read at its end. */
export type RouteOf<R> = string | ((req: R) => string | undefined) | undefined;

/** What index.ts switches on: every helper's implementation, and the SDK's shutdown. */
export interface Tracing {
  startServerSpan<R extends IncomingMessage>(
    req: R,
    res: ServerResponse,
    path: string,
    route: RouteOf<R>,
  ): ServerSpan | undefined;
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
  inject<T extends object>(carrier: T): T & TraceCarrier;
  withExtractedContext<T>(carrier: unknown, name: string, fn: () => T, attributes?: Attributes): T;
  logFields(): { trace_id?: string; span_id?: string };
  shutdown(): Promise<void>;
}

/** One incoming request's server span, ended by the response's 'close'. */
export interface ServerSpan {
  /** The span's W3C `traceparent`: the parent the gateway sends upstream. */
  readonly traceparent: string;
  /** `fn(...args)` in the span's context (the request's middleware chain). */
  run<A extends unknown[], T>(fn: (...args: A) => T, ...args: A): T;
}

/** CommonJS modules the instrumentations patch in place; pg loads pg-pool itself. */
const PRELOADED: Record<TracedClient, readonly string[]> = {
  pg: ['pg'],
  ioredis: ['ioredis'],
  undici: [],
  http: ['node:http', 'node:https'],
};

const SERVER = { kind: SpanKind.SERVER };
/** Paths no span is made for: probes and scrapes would be most traces and tell nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function startSdk(serviceName: string, clients: readonly TracedClient[]): Tracing {
  const env = process.env;
  diag.setLogger(new DiagConsoleLogger(), {
    logLevel: diagLogLevelFromString(env.OTEL_LOG_LEVEL) ?? DiagLogLevel.WARN,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  // W3C trace context only: nothing here reads baggage, and a composite would parse it too.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': serviceName }))
      .merge(
        detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }),
      ),
    sampler: samplerOf(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: processorsOf(env),
  });
  trace.setGlobalTracerProvider(provider);
  const instrumentations = clients.map(instrumentationOf);
  for (const instrumentation of instrumentations) instrumentation.setTracerProvider(provider);
  // Why no loader hook: the instrumentations hook `require`, so the CommonJS clients are
  // required once here, patched in place; the ESM imports that follow get the same cached
  // exports (node:http's named exports are a copy, refreshed by syncBuiltinESMExports).
  // Resolved from the entry: the process's own copies of the clients.
  const require = createRequire(process.argv[1] ? resolve(process.argv[1]) : import.meta.url);
  for (const client of clients) for (const name of PRELOADED[client]) require(name);
  if (clients.includes('http')) syncBuiltinESMExports();
  const tracer = provider.getTracer('@svc/tracing');

  class RequestSpan implements ServerSpan {
    constructor(
      readonly span: Span,
      readonly context: Context,
    ) {}
    get traceparent(): string {
      const { traceId, spanId, traceFlags } = this.span.spanContext();
      return `00-${traceId}-${spanId}-${traceFlags & 1 ? '01' : '00'}`;
    }
    run<A extends unknown[], T>(fn: (...args: A) => T, ...args: A): T {
      return context.with(this.context, fn, undefined, ...args);
    }
  }

  return {
    startServerSpan(req, res, path, route) {
      if (UNTRACED_PATHS.has(path)) return undefined;
      const method = req.method ?? 'GET';
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const known = typeof route === 'string';
      const span = tracer.startSpan(known ? `${method} ${route}` : method, SERVER, parent);
      // Attributes only on a recorded span: the SDK validates and copies those given to
      // startSpan before sampling, a fifth of an unsampled span's cost. Stable HTTP
      // conventions; no client address (the access log keeps none either) and no query
      // string (it may carry tokens).
      const recording = span.isRecording();
      if (recording) {
        span.setAttribute('http.request.method', method);
        span.setAttribute('url.path', path);
        if (typeof route === 'string') span.setAttribute('http.route', route);
      }
      // 'close' comes once, after every answer and when the client left before one.
      res.on('close', () => {
        if (recording) {
          const pattern = typeof route === 'function' ? route(req) : undefined;
          if (pattern !== undefined) {
            span.setAttribute('http.route', pattern);
            span.updateName(`${method} ${pattern}`);
          }
          span.setAttribute('http.response.status_code', res.statusCode);
          if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      });
      return new RequestSpan(span, trace.setSpan(parent, span));
    },
    bind: (fn) => context.bind(context.active(), fn),
    inject(carrier) {
      propagation.inject(context.active(), carrier);
      return carrier;
    },
    withExtractedContext<T>(
      carrier: unknown,
      name: string,
      fn: () => T,
      attributes: Attributes = {},
    ): T {
      const parent = propagation.extract(ROOT_CONTEXT, carrierOf(carrier));
      const options = { kind: SpanKind.CONSUMER, attributes };
      return tracer.startActiveSpan(name, options, parent, (span) => {
        const fail = (err: unknown) => {
          span.recordException(err instanceof Error ? err : String(err));
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw err;
        };
        try {
          const out = fn();
          if (!(out instanceof Promise)) {
            span.end();
            return out;
          }
          return out.then((value: unknown) => {
            span.end();
            return value;
          }, fail) as T;
        } catch (err) {
          return fail(err);
        }
      });
    },
    logFields() {
      const span = trace.getSpan(context.active());
      if (span === undefined) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The sampler OTEL_TRACES_SAMPLER names (the SDK's defaults for a missing or bad ratio). */
function samplerOf(name = 'parentbased_always_on', arg?: string): Sampler {
  const ratio = () => {
    const value = Number(arg ?? 1);
    return value >= 0 && value <= 1 ? value : 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      if (name !== 'parentbased_always_on') diag.warn(`unknown OTEL_TRACES_SAMPLER ${name}`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * OTEL_TRACES_EXPORTER (`otlp`, `console`, `none`) and the OTLP protocol (`http/protobuf`,
 * OTLP's default, or `http/json`). The exporters read the endpoint, headers, timeout,
 * compression and certificates from the standard settings themselves.
 */
function processorsOf(env: NodeJS.ProcessEnv): SpanProcessor[] {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim() || 'otlp';
  if (exporter === 'none') return [];
  if (exporter === 'console')
    return [new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() })];
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  const count = (name: string) => {
    const value = Number(env[name] || undefined);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  };
  return [
    new BatchSpanProcessor({
      exporter: protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter(),
      scheduledDelayMillis: count('OTEL_BSP_SCHEDULE_DELAY'),
      maxQueueSize: count('OTEL_BSP_MAX_QUEUE_SIZE'),
      maxExportBatchSize: count('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      exportTimeoutMillis: count('OTEL_BSP_EXPORT_TIMEOUT'),
    }),
  ];
}

function instrumentationOf(client: TracedClient) {
  switch (client) {
    case 'pg':
      // Inside a trace only: the outbox pollers would each start a trace every few seconds.
      return new PgInstrumentation({ requireParentSpan: true });
    case 'ioredis':
      // The command name only: arguments hold rate-limit keys (client IPs) and job payloads.
      return new IORedisInstrumentation({
        requireParentSpan: true,
        dbStatementSerializer: (command) => command,
      });
    case 'undici':
      return new UndiciInstrumentation();
    case 'http':
      return new HttpInstrumentation({
        // Outgoing requests only: server spans are startServerSpan's.
        disableIncomingRequestInstrumentation: true,
        // Headers given as a flat array (a WebSocket tunnel's upgrade) would be turned into
        // an object with numeric keys to add `traceparent`, and the upgrade lost.
        ignoreOutgoingRequestHook: (options) => Array.isArray(options.headers),
      });
  }
}

/** Only the two string fields: a carrier may be any parsed JSON. */
function carrierOf(carrier: unknown): TraceCarrier {
  const out: TraceCarrier = {};
  if (carrier && typeof carrier === 'object') {
    const { traceparent, tracestate } = carrier as Record<string, unknown>;
    if (typeof traceparent === 'string') out.traceparent = traceparent;
    if (typeof tracestate === 'string') out.tracestate = tracestate;
  }
  return out;
}
