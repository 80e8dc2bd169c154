// The request's server span in the services' express apps (@svc/tracing). With tracing off
// each helper returns the middleware it was given: the app has no tracing step at all.
import type { RequestHandler } from 'express';
import { bindTraceContext, startServerSpan, tracingEnabled } from '@svc/tracing';
import { hasBody } from './has-body.js';
import { recordedUrl } from './recorded-url.js';
import { routePattern } from '../ops/route-pattern.js';

/**
 * `first`, the app's first middleware, run with the whole chain after it in the request's
 * server span; the span is named by the matched route when the answer is done. One
 * middleware, not one more before it: each router layer costs every request a step.
 */
export function withServerSpan(first: RequestHandler): RequestHandler {
  if (!tracingEnabled()) return first;
  return (req, res, next) => {
    const span = startServerSpan(req, res, recordedUrl(req.path), routePattern);
    if (span === undefined) return first(req, res, next);
    span.run(first, req, res, next);
  };
}

/**
 * `middleware` with the request's trace context restored when it calls `next`: a body
 * parser calls it from the request stream's 'end' event, outside that context.
 */
export function keepTraceContext(middleware: RequestHandler): RequestHandler {
  if (!tracingEnabled()) return middleware;
  return (req, res, next) => middleware(req, res, hasBody(req) ? bindTraceContext(next) : next);
}
