// The first import of main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must start
// before any instrumented package is loaded (@svc/tracing).
import { startTracing } from '@svc/tracing';

// No client instrumentations: the proxy carries traceparent itself (app.ts).
startTracing('gateway', []);
