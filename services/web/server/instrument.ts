// The first import of main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must start
// before any instrumented package is loaded (@svc/tracing).
import { startTracing } from '@svc/tracing';

startTracing('web');
