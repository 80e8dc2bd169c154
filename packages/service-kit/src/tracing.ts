// Distributed tracing (OpenTelemetry, W3C `traceparent`). On only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: then `startTracing` loads the Node SDK (OTLP export,
// batch span processor, sampler and protocol from the standard OTEL_* settings) and the
// instrumentations of http (server and client), express, pg, ioredis and undici/fetch.
// When it is not set nothing of OpenTelemetry is loaded, and every helper below costs one
// check of a module variable.
//
// Why no import-in-the-middle loader hook: it must be registered before the entry's static
// imports are loaded, which needs `node --import` in every launcher (start.mjs, Dockerfile,
// k8s, tests, benches). Instead each process's entry imports its `instrument.ts` first, which
// calls `startTracing` synchronously (the SDK is `require`d, so nothing else of the entry's
// graph runs before it), and `startTracing` requires the instrumented CommonJS packages
// through the hooked `require`: they are patched in place and cached, and the ESM imports
// that follow get those same cached exports (`syncBuiltinESMExports` does it for node:http).
// The log fields come from a pino mixin (`traceLogFields`), not the pino instrumentation:
// that one replaces the module's export, which ESM importers of pino never see.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

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

/** CommonJS packages (the kit's dependencies) whose instrumentations patch them in place; pg
 * loads pg-pool itself, through the same hooked require. */
const PRELOADED = ['node:http', 'node:https', 'pg', 'ioredis', 'express'];

export function tracingEnabled(): boolean {
  return api !== undefined;
}

/**
 * Starts tracing for the process `serviceName` (the `service.name` resource) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; returns whether it did. Call it before anything else
 * is imported (a process's `instrument.ts`, the first import of its entry).
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  if (api) return true;
  const require = createRequire(import.meta.url);
  const { NodeSDK } =
    require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const started = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || serviceName,
    // Only traces: metrics stay on /metrics (Prometheus), logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would be most of the traces and tell nothing.
        ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)\b/.test(req.url ?? ''),
        // Headers given as a flat array (the gateway's WebSocket tunnel) would be turned into
        // an object with numeric keys to add `traceparent`: the upgrade would be lost.
        ignoreOutgoingRequestHook: (options) => Array.isArray(options.headers),
        // No raw client address in a span, as in the access log (docs/decisions.md §13).
        requestHook: (span, request) => {
          if ('httpVersion' in request)
            for (const key of CLIENT_ADDRESS_ATTRIBUTES) span.setAttribute(key, REDACTED);
        },
      }),
      // Handlers only: a span per middleware (body parser, request id, ...) was most of the
      // spans and of the cost (bench/README.md, "Tracing").
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Pollers (outbox relays, BullMQ's blocking reads) would each start a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: arguments hold rate-limit keys (client IPs) and job payloads.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (cmd) => cmd }),
      new UndiciInstrumentation({ requestHook: (_span, request) => dropTraceHeaders(request) }),
    ],
  });
  started.start();
  for (const name of PRELOADED) require(name);
  syncBuiltinESMExports();
  sdk = started;
  api = require('@opentelemetry/api') as Api;
  return true;
}

/**
 * The attributes in which the http instrumentation records who called a server (old and
 * stable semantic conventions); a server span keeps them only as `redacted`.
 */
const CLIENT_ADDRESS_ATTRIBUTES = [
  'client.address',
  'client.port',
  'network.peer.address',
  'network.peer.port',
  'net.peer.ip',
  'net.peer.port',
  'net.sock.peer.addr',
  'net.sock.peer.port',
  'http.client_ip',
] as const;
const REDACTED = 'redacted';

/** Exports the spans still buffered and stops the SDK (graceful shutdown); bounded by the caller. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}

/**
 * An undici request that forwards its caller's headers (the gateway's proxy) would carry the
 * incoming `traceparent` and the one of its own client span: keep only the latter.
 */
function dropTraceHeaders(request: { headers?: unknown }): void {
  const traceHeader = (name: unknown) =>
    typeof name === 'string' && /^(traceparent|tracestate)$/i.test(name);
  const headers = request.headers;
  if (Array.isArray(headers)) {
    for (let i = headers.length - 2; i >= 0; i -= 2)
      if (traceHeader(headers[i])) headers.splice(i, 2);
  } else if (typeof headers === 'string' && /traceparent|tracestate/i.test(headers)) {
    request.headers = headers
      .split('\r\n')
      .filter((line) => !traceHeader(line.slice(0, line.indexOf(':')).trim()))
      .join('\r\n');
  }
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
  const tracer = otel.trace.getTracer('@svc/service-kit');
  return tracer.startActiveSpan(
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
