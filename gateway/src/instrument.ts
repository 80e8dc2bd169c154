// The first import of main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must start
// before any instrumented package is loaded (service-kit/src/tracing.ts).
import { startTracing } from '@svc/service-kit/tracing';

// No client instrumentations: the proxy carries traceparent itself (server.ts).
startTracing('gateway', process.env, { clients: [] });
