// Structured JSON logs (pino); request-scoped loggers carry the request id, and every line
// the trace_id/span_id of the active span while tracing runs (@svc/tracing).
import { pino, type Logger } from 'pino';
import { traceLogFields, tracingEnabled } from '@svc/tracing';

export type { Logger };

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // A line's own trace_id/span_id (the access log's) win over the mixin's.
    mixin: tracingEnabled() ? traceLogFields : undefined,
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}
