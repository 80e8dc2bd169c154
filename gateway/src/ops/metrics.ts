// Prometheus metrics of the gateway: requests and latency per route prefix and status.
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

interface Series {
  count: { inc(): void };
  latency: { observe(value: number): void };
}

export interface Metrics {
  registry: Registry;
  /** Records one finished request; `route` is a routing-table prefix or an own route. */
  record(route: string, status: number, startedAt: number): void;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests answered by the gateway, per route prefix and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Time from request to the end of the answer, per route prefix and status',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Label children are looked up once per (route, status), kept in a map per route keyed
  // by the status number: the hot path builds no key string, and does two calls.
  const series = new Map<string, Map<number, Series>>();
  return {
    registry,
    record(route, status, startedAt) {
      let byStatus = series.get(route);
      if (byStatus === undefined) series.set(route, (byStatus = new Map()));
      let s = byStatus.get(status);
      if (s === undefined) {
        const code = String(status);
        s = { count: requests.labels(route, code), latency: duration.labels(route, code) };
        byStatus.set(status, s);
      }
      s.count.inc();
      s.latency.observe((performance.now() - startedAt) / 1000);
    },
  };
}
