// Structured JSON logs (pino); request-scoped loggers carry the request id, and every line
// the trace_id/span_id of the active span when tracing is on (tracing.ts).
import { pino, type Logger } from 'pino';
import { traceLogFields, tracingEnabled } from './tracing.js';

export type { Logger };

type TraceFields = ReturnType<typeof traceLogFields>;
const NONE: TraceFields = Object.freeze({});

/**
 * A line object's key for trace ids it carries itself (the access log's, read when its
 * request started). A symbol: pino's serialiser skips it, and the ids are written by
 * `addTraceFields` instead.
 */
export const TRACE_FIELDS = Symbol('trace fields');

/** The ids of the line being written: set by `traceMixin`, taken by `addTraceFields`. */
let pending: TraceFields | undefined;

/**
 * Chooses the line's ids (its own under TRACE_FIELDS, else the active span's, none if it
 * names `trace_id` as an ordinary field) and merges nothing: pino would escape-check each
 * of their 48 hex characters one by one, an inline-cache call each, 13 k instructions a
 * line, a third of what tracing costs an unsampled request (bench/README.md, "Tracing").
 */
function traceMixin(line: object): TraceFields {
  const own = (line as { [TRACE_FIELDS]?: TraceFields })[TRACE_FIELDS];
  pending = own ?? ((line as TraceFields).trace_id === undefined ? traceLogFields() : undefined);
  return NONE;
}

const keepLine = (line: object) => line;

/** pino's last step (its streamWrite hook): the chosen ids, appended as text (hex: nothing to escape). */
function addTraceFields(text: string): string {
  const fields = pending;
  pending = undefined;
  if (fields?.trace_id === undefined) return text;
  const end = text.lastIndexOf('}');
  if (end === -1) return text;
  return `${text.slice(0, end)},"trace_id":"${fields.trace_id}","span_id":"${fields.span_id}"${text.slice(end)}`;
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
    mixinMergeStrategy: traced ? keepLine : undefined,
    ...(traced ? { hooks: { streamWrite: addTraceFields } } : {}),
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}
