// Structured JSON logs (pino); request-scoped loggers carry the request id, and every line
// the trace_id/span_id of the active span when tracing is on (tracing.ts).
import { pino, type Logger } from 'pino';
import { traceLogFields, tracingEnabled } from './tracing.js';

export type { Logger };

type TraceFields = ReturnType<typeof traceLogFields>;
const NONE: TraceFields = Object.freeze({});

/**
 * The active span's ids for a line that does not name them itself. The access log's lines
 * do (read when the request started): for those nothing is read or merged, and pino writes
 * the line object as it is, one shape for every request.
 */
function traceMixin(line: object): TraceFields {
  return (line as TraceFields).trace_id === undefined ? traceLogFields() : NONE;
}

/** pino's own merge (the line's fields win), skipped when there is nothing to add. */
function mergeTraceFields(line: object, fields: object): object {
  return (fields as TraceFields).trace_id === undefined ? line : Object.assign(fields, line);
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const traced = tracingEnabled();
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id/span_id of the active span on every line, only while tracing runs.
    mixin: traced ? traceMixin : undefined,
    mixinMergeStrategy: traced ? mergeTraceFields : undefined,
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}
