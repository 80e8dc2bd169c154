// A server span per request for the services' express apps (tracing.ts says why these are
// not the http/express instrumentations). Installed only while tracing runs: with it off the
// app has no such middleware at all.
import type { RequestHandler } from 'express';
import { hasBody } from './has-body.js';
import { routePattern } from './route-pattern.js';
import {
  bindTraceContext,
  endServerSpan,
  runInServerSpan,
  startServerSpan,
  tracingEnabled,
} from './tracing.js';

/**
 * `first`, the app's first middleware, preceded by the request's server span: `first` and the
 * whole chain after it run in the span's context. One middleware, not one more before it:
 * each router layer costs every request a step of express's `next`. Tracing off: `first`.
 */
export function withServerSpan(first: RequestHandler): RequestHandler {
  if (!tracingEnabled()) return first;
  return (req, res, next) => {
    const server = startServerSpan(req.method, req.path, req.headers);
    if (server === undefined) return first(req, res, next);
    // 'close' comes once, after every answer, and when the client left before one (`on`:
    // `once` would wrap the listener per request). The route is known by then when a
    // handler matched (the metrics read it the same way).
    res.on('close', () => endServerSpan(server, res.statusCode, routePattern(req)));
    runInServerSpan(server, first, req, res, next);
  };
}

/**
 * `middleware` with the request's trace context restored when it calls `next`: a body
 * parser calls it from the request stream's 'end' event, which runs outside the context the
 * request started in. A request without a body is passed on at once, in its own context.
 * Tracing off: `middleware` itself.
 */
export function keepTraceContext(middleware: RequestHandler): RequestHandler {
  if (!tracingEnabled()) return middleware;
  return (req, res, next) => middleware(req, res, hasBody(req) ? bindTraceContext(next) : next);
}
