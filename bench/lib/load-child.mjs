// A load generator of its own, as a forked child (so the stacks a benchmark loads side by side
// are not paced by one event loop): runs autocannon with the options each message gives and
// answers with the result (bench/tracing.mjs).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function runLoadChild() {
  const autocannon = createRequire(path.join(ROOT, 'gateway', 'package.json'))('autocannon');
  process.on('message', async (options) => {
    const r = await autocannon(options);
    process.send({
      total: r.requests.total,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      failures: r.non2xx + r.errors + r.timeouts,
    });
  });
  process.send('ready');
}
