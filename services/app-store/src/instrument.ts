// The first import of main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must start
// before any instrumented package is loaded (service-kit/src/tracing.ts).
import { startTracing } from '@svc/service-kit/tracing';

startTracing('app-store');
