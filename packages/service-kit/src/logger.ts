// Structured JSON logs (pino); request-scoped loggers carry the request id, and every line
// the trace_id/span_id of the active span when tracing is on (tracing.ts).
import { pino, type Logger } from 'pino';
import { traceLogFields, tracingEnabled } from './tracing.js';

export type { Logger };

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id/span_id of the active span on every line, only while tracing runs.
    mixin: tracingEnabled() ? traceLogFields : undefined,
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}
