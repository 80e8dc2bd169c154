// Distributed tracing (OpenTelemetry, W3C `traceparent`). On only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: then `startTracing` loads the Node SDK (OTLP export,
// batch span processor, sampler and protocol from the standard OTEL_* settings) and the
// instrumentations of the clients: pg, ioredis, undici/fetch and node:http(s) requests
// (the scraper's got). When it is not set nothing
// of OpenTelemetry is loaded, and every helper below costs one check of a module variable.
//
// Server spans are made here (`startServerSpan`, used by the gateway's request handler and
// the services' first express middleware, server-spans.ts), not by the http (incoming side)
// and express instrumentations: those wrap every request, response and listener even when nothing is
// sampled, which cost the gateway 23 µs per request of its 34 (bench/README.md, "Tracing").
// A server span needs the caller's `traceparent`, a start, an end and a status: we have
// both servers' request handlers, so that is a few lines and no patching.
//
// Why no import-in-the-middle loader hook: it must be registered before the entry's static
// imports are loaded, which needs `node --import` in every launcher (start.mjs, Dockerfile,
// k8s, tests, benches). Instead each process's entry imports its `instrument.ts` first, which
// calls `startTracing` synchronously (the SDK is `require`d, so nothing else of the entry's
// graph runs before it), and `startTracing` requires the instrumented CommonJS packages
// through the hooked `require`: they are patched in place and cached, and the ESM imports
// that follow get those same cached exports.
// The log fields come from a pino mixin (`traceLogFields`), not the pino instrumentation:
// that one replaces the module's export, which ESM importers of pino never see.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { IncomingHttpHeaders } from 'node:http';
import type * as OtelApi from '@opentelemetry/api';
import { LinkedContext } from './linked-context.js';
import { OtlpJsonSpanProcessor } from './otlp-json-export.js';
import { PooledIdGenerator } from './trace-ids.js';
import {
  ContextOnlySpan,
  decideServerSpan,
  recordTracerProvider,
  spanPipelineOf,
  type SpanPipeline,
} from './span-record.js';

/** The W3C trace context fields carried in an outbox row, a job's data or an event. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

type Api = typeof OtelApi;
interface Sdk {
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** Set once the SDK runs: the helpers do nothing (one check) until then. */
let api: Api | undefined;
let sdk: Sdk | undefined;
let tracer: OtelApi.Tracer | undefined;
/** The SDK's sampler, ids and processors, for server spans (span-record.ts says why). */
let pipeline: SpanPipeline | undefined;
/** Whether the global propagator is the standard W3C one (`callerContext` reads it itself). */
let w3cOnly = false;
/** The API's context key of the active span, once checked (`withSpan`). */
let spanKey: symbol | undefined;

/** The client libraries whose maintained instrumentations make spans of their calls. */
export type TracedClient = 'pg' | 'ioredis' | 'undici' | 'http';
const ALL_CLIENTS: readonly TracedClient[] = ['pg', 'ioredis', 'undici', 'http'];

/** CommonJS packages whose instrumentations patch them in place; pg loads pg-pool itself,
 * through the same hooked require. undici/fetch is observed through diagnostics_channel. */
const PRELOADED: Record<TracedClient, readonly string[]> = {
  pg: ['pg'],
  ioredis: ['ioredis'],
  undici: [],
  http: ['node:http', 'node:https'],
};

export function tracingEnabled(): boolean {
  return api !== undefined;
}

export interface TracingOptions {
  /**
   * The clients whose calls become spans (default: all three). The gateway names none: its
   * proxy carries `traceparent` itself, and an undici client span per proxied request would
   * double its cost for a span that repeats the upstream's server span.
   */
  clients?: readonly TracedClient[];
}

/**
 * Starts tracing for the process `serviceName` (the `service.name` resource) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; returns whether it did. Call it before anything else
 * is imported (a process's `instrument.ts`, the first import of its entry).
 */
export function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
  options: TracingOptions = {},
): boolean {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  if (api) return true;
  // V8's allocation-site pretenuring, having seen requests' trace contexts alive at a
  // scavenge, allocates objects of those sites in the old generation from then on; each
  // such object keeps whatever young objects it points to alive through the next scavenges,
  // and the cascade promotes most of every request. Measured in the app-store with nothing
  // sampled: 400 KB surviving each scavenge, against 70 KB untraced and 70 KB traced with
  // the flag (bench/README.md, "Tracing"). Set before anything of the SDK is loaded; an
  // untraced process keeps V8's default (the flag measured no better there).
  setFlagsFromString('--no-allocation-site-pretenuring');
  const clients = new Set(options.clients ?? ALL_CLIENTS);
  const require = createRequire(import.meta.url);
  const { NodeSDK } =
    require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const instrumentations = [];
  if (clients.has('pg')) {
    const { PgInstrumentation } =
      require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
    // Pollers (outbox relays, BullMQ's blocking reads) would each start a trace of their own.
    instrumentations.push(new PgInstrumentation({ requireParentSpan: true }));
  }
  if (clients.has('ioredis')) {
    const { IORedisInstrumentation } =
      require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
    // The command name only: arguments hold rate-limit keys (client IPs) and job payloads.
    instrumentations.push(
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (cmd) => cmd }),
    );
  }
  if (clients.has('http')) {
    const { HttpInstrumentation } =
      require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
    instrumentations.push(
      new HttpInstrumentation({
        // Outgoing requests only: server spans are startServerSpan's.
        disableIncomingRequestInstrumentation: true,
        // Headers given as a flat array (a WebSocket tunnel) would be turned into an object
        // with numeric keys to add `traceparent`: the upgrade would be lost.
        ignoreOutgoingRequestHook: (options) => Array.isArray(options.headers),
      }),
    );
  }
  if (clients.has('undici')) {
    const { UndiciInstrumentation } =
      require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
    instrumentations.push(new UndiciInstrumentation());
  }
  const started = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || serviceName,
    // Only traces: metrics stay on /metrics (Prometheus), logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations,
    // Unset: the SDK's exporter and batch processor, from the same settings.
    spanProcessors: jsonProcessorFor(env, require),
    idGenerator: new PooledIdGenerator(),
  });
  started.start();
  for (const client of clients) for (const name of PRELOADED[client]) require(name);
  // node:http's ESM named exports are a copy: refresh them from the patched module.
  if (clients.has('http')) syncBuiltinESMExports();
  sdk = started;
  api = require('@opentelemetry/api') as Api;
  tracer = api.trace.getTracer('@svc/service-kit');
  const core = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  pipeline = spanPipelineOf(tracer, core);
  // The instrumentations' spans are records too (span-record.ts says why); each keeps the
  // scope the SDK would have given it.
  if (pipeline) {
    const records = recordTracerProvider(api, api.trace.getTracerProvider(), core);
    for (const instrumentation of instrumentations) instrumentation.setTracerProvider(records);
  }
  w3cOnly = isStandardW3cPropagator(api);
  spanKey = checkedSpanKey(api);
  return true;
}

/**
 * The key under which the API keeps a context's span (`trace.setSpan`'s), if a
 * `LinkedContext` holding a span under it is read back by `trace.getSpan`; else undefined,
 * and the API's own contexts are made.
 */
function checkedSpanKey(otel: Api): symbol | undefined {
  const key = otel.createContextKey('OpenTelemetry Context Key SPAN');
  const probe = otel.trace.wrapSpanContext(otel.INVALID_SPAN_CONTEXT);
  return otel.trace.getSpan(new LinkedContext(otel.ROOT_CONTEXT, key, probe)) === probe
    ? key
    : undefined;
}

/** `parent` with `span` as its span: a `LinkedContext` (linked-context.ts says why). */
function withSpan(otel: Api, parent: OtelApi.Context, span: OtelApi.Span): OtelApi.Context {
  return spanKey ? new LinkedContext(parent, spanKey, span) : otel.trace.setSpan(parent, span);
}

/**
 * Whether the SDK installed the default propagator, W3C trace context (and baggage): the
 * composite of `OTEL_PROPAGATORS=tracecontext,baggage` (its default). Only then may
 * `callerContext` read `traceparent` without it. Reads the API's and the composite's
 * private fields; another version of either: false, and the propagator is used.
 */
function isStandardW3cPropagator(otel: Api): boolean {
  const global = (
    otel.propagation as unknown as { _getGlobalPropagator?: () => { _propagators?: unknown } }
  )._getGlobalPropagator?.();
  const parts = global?._propagators;
  if (!Array.isArray(parts)) return false;
  const names = parts.map((p: object) => p.constructor.name);
  return (
    names.includes('W3CTraceContextPropagator') &&
    names.every((n) => n === 'W3CTraceContextPropagator' || n === 'W3CBaggagePropagator')
  );
}

/** A version-00 `traceparent` exactly as W3C Trace Context writes it (lower-case hex). */
const TRACEPARENT_00 = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/**
 * The caller's context from a request's headers. The common cases are read here: no trace
 * headers at all (a new trace), or one version-00 `traceparent` without `tracestate` or
 * `baggage` (what the gateway sends every service). The propagator's regular expression,
 * its validation (and again in the sampler) and its composite's per-propagator loop cost
 * more than the rest of an unsampled request's tracing (bench/README.md, "Tracing").
 * Anything else (other versions, spaces, tracestate, baggage, another propagator) goes
 * through the configured propagator, as before.
 */
export function callerContext(otel: Api, headers: IncomingHttpHeaders): OtelApi.Context {
  if (w3cOnly && headers.tracestate === undefined && headers.baggage === undefined) {
    const header = headers.traceparent;
    if (header === undefined) return otel.ROOT_CONTEXT;
    if (typeof header === 'string' && TRACEPARENT_00.test(header)) {
      const traceId = header.slice(3, 35);
      const spanId = header.slice(36, 52);
      // All-zero ids are invalid: the propagator ignores such a header too.
      if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return otel.ROOT_CONTEXT;
      const traceFlags = parseInt(header.slice(53), 16);
      // The kit's span: a child trusts its ids without checking them again (span-record.ts).
      const caller = new ContextOnlySpan({ traceId, spanId, traceFlags, isRemote: true });
      return withSpan(otel, otel.ROOT_CONTEXT, caller);
    }
  }
  return otel.propagation.extract(otel.ROOT_CONTEXT, headers);
}

/**
 * The kit's OTLP/HTTP JSON span processor (otlp-json-export.ts) when the settings ask for what
 * it does: OTLP (OTEL_TRACES_EXPORTER unset or `otlp`), over `http/json` (the default here,
 * docs/configuration.md), no compression, no client certificate. Anything else: undefined,
 * and the SDK builds its own exporter from the same settings.
 */
function jsonProcessorFor(
  env: NodeJS.ProcessEnv,
  require: NodeJS.Require,
): OtlpJsonSpanProcessor[] | undefined {
  const setting = (name: string) =>
    env[`OTEL_EXPORTER_OTLP_TRACES_${name}`] || env[`OTEL_EXPORTER_OTLP_${name}`];
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter && exporter !== 'otlp') return undefined;
  if ((setting('PROTOCOL') ?? 'http/json') !== 'http/json') return undefined;
  if ((setting('COMPRESSION') ?? 'none') !== 'none') return undefined;
  if (setting('CERTIFICATE') || setting('CLIENT_KEY') || setting('CLIENT_CERTIFICATE'))
    return undefined;
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    `${(env.OTEL_EXPORTER_OTLP_ENDPOINT as string).replace(/\/+$/, '')}/v1/traces`;
  const positive = (value: string | undefined) => {
    const n = Number(value);
    return value && Number.isSafeInteger(n) && n > 0 ? n : undefined;
  };
  const otel = require('@opentelemetry/api') as Api;
  const { parseKeyPairsIntoRecord, suppressTracing } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  return [
    new OtlpJsonSpanProcessor({
      url,
      untraced: (fn) => otel.context.with(suppressTracing(otel.context.active()), fn),
      // `name=value,…`, values percent-encoded: the parser the SDK's exporters use.
      headers: parseKeyPairsIntoRecord(setting('HEADERS')),
      timeoutMs: positive(setting('TIMEOUT')),
      batchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE),
      delayMs: positive(env.OTEL_BSP_SCHEDULE_DELAY),
      maxQueue: positive(env.OTEL_BSP_MAX_QUEUE_SIZE),
    }),
  ];
}

/** Paths no span is made for: probes and scrapes would be most traces and tell nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** One incoming request's server span and the context its work runs in. */
export interface ServerSpan {
  readonly method: string;
  readonly span: OtelApi.Span;
  /** The caller's context (`runInServerSpan` adds the span: the gateway needs neither). */
  readonly parent: OtelApi.Context;
}

/**
 * Starts the server span of an incoming request (HTTP semantic conventions, stable names),
 * the child of the caller's `traceparent` when it sends one. `route` is the route pattern
 * when already known (the gateway's routing table), else set at the end. Undefined when
 * tracing is off or the path is a probe. The span holds no client address (the access log
 * holds none either, docs/decisions.md §13) and no query string (it may carry tokens).
 */
export function startServerSpan(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  route?: string,
): ServerSpan | undefined {
  const otel = api;
  if (!otel || UNTRACED_PATHS.has(path)) return undefined;
  const parent = callerContext(otel, headers);
  const attributes: OtelApi.Attributes = { 'http.request.method': method, 'url.path': path };
  if (route !== undefined) attributes['http.route'] = route;
  const name = route === undefined ? method : spanName(method, route);
  const span = pipeline
    ? decideServerSpan(otel, pipeline, name, attributes, parent)
    : (tracer as OtelApi.Tracer).startSpan(
        name,
        { kind: otel.SpanKind.SERVER, attributes },
        parent,
      );
  return { method, span, parent };
}

/** Server span names (`GET /api/v1/apps`) by route pattern, then method. */
const spanNames = new Map<string, Map<string, string>>();
/** Route patterns kept: a service has tens; anything past this is named afresh each time. */
const SPAN_NAME_ROUTES = 1024;

/**
 * `${method} ${route}`, the same string every time for a route and a method. A name made per
 * request is a new string that the exporter's cache of names (otlp-json-export.ts) must hash
 * and compare again, per span: 6 % of a sampled span's cost (bench/tracing-span-cost.mjs).
 * Method and route are constants (the HTTP parser's, the routing table's): their hashes are
 * computed once.
 */
function spanName(method: string, route: string): string {
  let byMethod = spanNames.get(route);
  if (byMethod === undefined) {
    if (spanNames.size >= SPAN_NAME_ROUTES) return `${method} ${route}`;
    spanNames.set(route, (byMethod = new Map()));
  }
  let name = byMethod.get(method);
  if (name === undefined) byMethod.set(method, (name = `${method} ${route}`));
  return name;
}

/** Ends a server span with the answer's status (5xx marks it failed, as the conventions say). */
export function endServerSpan(server: ServerSpan, status: number, route?: string): void {
  const { span } = server;
  if (route !== undefined) {
    span.setAttribute('http.route', route);
    span.updateName(spanName(server.method, route));
  }
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: (api as Api).SpanStatusCode.ERROR });
  span.end();
}

/** The `traceparent` naming `server`'s span, for the request the gateway sends upstream. */
export function traceparentOf(server: ServerSpan): string {
  const { traceId, spanId, traceFlags } = server.span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags & 1 ? '01' : '00'}`;
}

/**
 * Runs `fn(...args)` with `server`'s context active (the request's middleware chain, a
 * callback a stream event would otherwise run outside of the request's context).
 */
export function runInServerSpan<A extends unknown[], T>(
  server: ServerSpan,
  fn: (...args: A) => T,
  ...args: A
): T {
  const otel = api as Api;
  return otel.context.with(withSpan(otel, server.parent, server.span), fn, undefined, ...args);
}

/**
 * `fn` bound to the active context (tracing off: `fn` itself). A plain closure: the context
 * manager's own `bind` also copies the function's `length` onto its wrapper, per call.
 */
export function bindTraceContext<F extends (...args: never[]) => unknown>(fn: F): F {
  const otel = api;
  if (!otel) return fn;
  const context = otel.context.active();
  return ((...args: Parameters<F>) =>
    otel.context.with(context, fn as (...a: Parameters<F>) => unknown, undefined, ...args)) as F;
}

/** Exports the spans still buffered and stops the SDK (graceful shutdown); bounded by the caller. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}

/**
 * Adds the active context's `traceparent` (and `tracestate`) to `carrier` and returns it;
 * unchanged when tracing is off or no span is active.
 */
export function injectTraceContext<T extends object>(carrier: T): T & TraceCarrier {
  if (api) api.propagation.inject(api.context.active(), carrier);
  return carrier;
}

/** The active context's W3C `traceparent`, or null (tracing off, no span): for an outbox row. */
export function currentTraceparent(): string | null {
  if (!api) return null;
  return injectTraceContext<TraceCarrier>({}).traceparent ?? null;
}

/**
 * Runs `fn` in a new span `name` whose parent is the context carried by `carrier` (an outbox
 * row, a job's data, an event), or a new trace when it carries none. The span ends when
 * what `fn` returns settles; an error marks it failed. Tracing off: just `fn()`.
 */
export function withExtractedContext<T>(
  carrier: unknown,
  name: string,
  fn: () => T,
  attributes: Record<string, string | number> = {},
): T {
  const otel = api;
  if (!otel) return fn();
  const parent = otel.propagation.extract(otel.ROOT_CONTEXT, carrierOf(carrier));
  return (tracer as OtelApi.Tracer).startActiveSpan(
    name,
    { kind: otel.SpanKind.CONSUMER, attributes },
    parent,
    (span) => {
      const fail = (err: unknown) => {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: otel.SpanStatusCode.ERROR });
      };
      try {
        const out = fn();
        if (out instanceof Promise) {
          return out.then(
            (value: unknown) => {
              span.end();
              return value;
            },
            (err: unknown) => {
              fail(err);
              span.end();
              throw err;
            },
          ) as T;
        }
        span.end();
        return out;
      } catch (err) {
        fail(err);
        span.end();
        throw err;
      }
    },
  );
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

/** `trace_id` and `span_id` of the active span for a log line (pino mixin); {} without one. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!api) return {};
  const span = api.trace.getSpan(api.context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
