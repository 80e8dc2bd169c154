// One JSON log line per request, written when the response finishes. Hand-written
// rather than pino-http: that one builds a child logger and serializers per request,
// which cost ~40% of a small JSON endpoint's throughput here (see bench/README.md).
import type { RequestHandler } from 'express';
import { TRACE_FIELDS, type Logger } from './logger.js';
import { traceLogFields, tracingEnabled } from './tracing.js';

const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (QUIET_PATHS.has(req.path)) return next();
    const started = performance.now();
    // The request's trace_id/span_id, read now (its server span is active): 'finish' may
    // come in another context, and binding the listener to this one cost a context switch
    // per request. The logger writes these, not the context's at 'finish' (logger.ts).
    const trace = tracingEnabled() ? traceLogFields() : undefined;
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          // One shape of line object; the logger writes the ids (logger.ts).
          [TRACE_FIELDS]: trace,
          reqId: req.headers['x-request-id'],
          method: req.method,
          url: req.originalUrl,
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          // No client address, raw or hashed (docs/decisions.md §13): logs are kept and
          // shipped far more widely than the data stores; reqId ties a line to a request.
        },
        'request',
      );
    });
    next();
  };
}
