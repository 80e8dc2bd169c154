// Prometheus metrics: request count and latency per route, plus Node's defaults.
import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { routePattern } from './route-pattern.js';

export interface Metrics {
  registry: Registry;
  middleware: RequestHandler;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route pattern, not the raw path, keeps label cardinality bounded.
      const route = routePattern(req) ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
      latency.observe({ method: req.method, route }, seconds);
    });
    next();
  };
  return { registry, middleware };
}
