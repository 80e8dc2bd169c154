// The first import of main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) must start
// before any instrumented package is loaded (@svc/tracing). Its only client is node:http:
// the calls to the services.
import { startTracing } from '@svc/tracing';

startTracing('mcp', ['http']);
