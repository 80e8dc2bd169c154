// Distributed tracing (OpenTelemetry, W3C `traceparent`), on only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set. This module is the switch: it imports no code, and
// each helper is one check of `on` until `startTracing` loads the SDK (sdk.ts). Off, nothing
// else of this package and nothing of OpenTelemetry is ever loaded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { RouteOf, ServerSpan, TraceCarrier, TracedClient, Tracing } from './sdk.js';

export type { RouteOf, ServerSpan, TraceCarrier, TracedClient };

let on: Tracing | undefined;

/**
 * Starts tracing for the process `serviceName` (`service.name`, unless OTEL_SERVICE_NAME
 * says otherwise) when OTEL_EXPORTER_OTLP_ENDPOINT is set; returns whether it did. Call it
 * before anything else is imported (each process's `instrument.ts`, the first import of its
 * entry): the client instrumentations must patch pg, ioredis and node:http before their
 * first importer runs. `clients` are the clients whose calls become spans (default: all).
 */
export function startTracing(serviceName: string, clients?: readonly TracedClient[]): boolean {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  if (on === undefined) {
    // Synchronous on purpose: the entry's other imports must not run before it.
    const sdk = createRequire(import.meta.url)('./sdk.js') as typeof import('./sdk.js');
    on = sdk.startSdk(serviceName, clients ?? sdk.ALL_CLIENTS);
  }
  return true;
}

export function tracingEnabled(): boolean {
  return on !== undefined;
}

/** Exports the spans still buffered and stops the SDK (graceful shutdown; the caller bounds it). */
export async function stopTracing(): Promise<void> {
  const running = on;
  on = undefined;
  await running?.shutdown();
}

/**
 * Starts the server span of an incoming request, the child of the caller's `traceparent`
 * when it sends one, and ends it on the response's 'close' with the status (5xx: failed)
 * and the route pattern. Undefined when tracing is off or the path is a probe.
 */
export function startServerSpan<R extends IncomingMessage>(
  req: R,
  res: ServerResponse,
  path: string,
  route?: RouteOf<R>,
): ServerSpan | undefined {
  return on?.startServerSpan(req, res, path, route);
}

/** `fn` bound to the active trace context (a callback that an I/O event calls back). */
export function bindTraceContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return on ? on.bind(fn) : fn;
}

/** Adds the active context's `traceparent` (and `tracestate`) to `carrier`, and returns it. */
export function injectTraceContext<T extends object>(carrier: T): T & TraceCarrier {
  return on ? on.inject(carrier) : carrier;
}

/** The active context's `traceparent`, or null (tracing off, no span): for an outbox row. */
export function currentTraceparent(): string | null {
  return on ? (on.inject<TraceCarrier>({}).traceparent ?? null) : null;
}

/**
 * Runs `fn` in a new span `name` continuing the context `carrier` holds (an outbox row, a
 * job's data, an event), or a new trace when it holds none. The span ends when what `fn`
 * returns settles; an error marks it failed. Tracing off: `fn()`.
 */
export function withExtractedContext<T>(
  carrier: unknown,
  name: string,
  fn: () => T,
  attributes?: Record<string, string | number>,
): T {
  return on ? on.withExtractedContext(carrier, name, fn, attributes) : fn();
}

/** `trace_id` and `span_id` of the active span, for a log line; {} without one. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  return on ? on.logFields() : {};
}
