// One JSON log line per request, written when the response finishes. Hand-written
// rather than pino-http: that one builds a child logger and serializers per request,
// which cost ~40% of a small JSON endpoint's throughput here (a bare express 5 app fell
// from 7.9 k to 4.6 k req/s with it, even at level `silent`).
import type { RequestHandler } from 'express';
import { traceLogFields } from '@svc/tracing';
import type { Logger } from '../ops/logger.js';
import { recordedUrl } from './recorded-url.js';

const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (QUIET_PATHS.has(req.path)) return next();
    const started = performance.now();
    // The request's trace_id/span_id, read now (its server span is active): 'finish' may
    // come in another context. They win over the logger's mixin.
    const trace = traceLogFields();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          ...trace,
          reqId: req.headers['x-request-id'],
          method: req.method,
          url: recordedUrl(req.originalUrl),
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          // No client address, raw or hashed (docs/decisions/013-operations-port.md): logs are kept and
          // shipped far more widely than the data stores; reqId ties a line to a request.
        },
        'request',
      );
    });
    next();
  };
}
