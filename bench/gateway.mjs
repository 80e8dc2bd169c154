#!/usr/bin/env node
// Gateway throughput benchmark: the same small JSON GET called directly on an upstream stub
// and through the real gateway, side by side in one run, alternating. See README.md
// ("Gateway"). Usage, from the repository root:
//   node bench/gateway.mjs [--duration 10] [--warmup 2] [--rounds 2] [--connections 50] [--compare]
// --compare adds reference proxies (plain http.Agent proxy, http-proxy-middleware on a bare
// server and in express) to show what the engine choice is worth; they do not affect the
// exit code. Exit code 1 when gateway/direct < 0.80. Traffic stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './lib/process-cpu.mjs';
import { HOST, freePort, waitFor } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireGw = createRequire(path.join(ROOT, 'gateway', 'package.json'));
const THRESHOLD = 0.8;

// ---------------------------------------------------------------- child modes

/** Upstream stub: GET /api/v1/apps answers a 20-item JSON array, serialised per request
 *  as a real service would; /readyz and /healthz answer 200. */
function stubApps() {
  return Array.from({ length: 20 }, (_, i) => ({
    id: `app_${String(i + 1).padStart(4, '0')}`,
    slug: `app-${i + 1}`,
    name: `App number ${i + 1}`,
    description: 'A small app used by the gateway benchmark; its listing entry is of a realistic size.',
    url: `https://app-${i + 1}.example.com`,
    category: 'tools',
    author_name: 'bench',
    downloads: 1000 - i,
    tech_tags: ['react', 'typescript'],
  }));
}

function runStub(port) {
  const apps = stubApps();
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/readyz' || req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
      return;
    }
    const body = JSON.stringify(apps);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, HOST, () => process.send?.('ready'));
}

/** The upstream as a real service: the kit's express stack (request ids, pino-http
 *  logging at info, metrics, JSON errors) answering the same 20 items. This is what
 *  "calling the service directly" means for the gateway target. */
async function runServiceUpstream(port) {
  const kit = await import(path.join(ROOT, 'packages/service-kit/src/index.ts'));
  const logger = kit.createLogger('bench-upstream', 'info');
  const apps = stubApps();
  const app = kit.createServiceApp({
    logger,
    metrics: kit.createMetrics('bench-upstream'),
    routes: (a) => a.get('/api/v1/apps', (_req, res) => void res.json(apps)),
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(port, HOST, () => process.send?.('ready'));
}

/** Reference proxies for --compare (not the gateway). */
async function runReference(kind, port, upstreamPort) {
  const target = `http://${HOST}:${upstreamPort}`;
  let handler;
  if (kind === 'http-agent') {
    const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
    handler = (req, res) => {
      const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress };
      delete headers.connection;
      delete headers['keep-alive'];
      const up = http.request({ host: HOST, port: upstreamPort, method: req.method, path: req.url, headers, agent }, (upRes) => {
        const h = { ...upRes.headers };
        delete h.connection;
        delete h['keep-alive'];
        delete h['transfer-encoding'];
        res.writeHead(upRes.statusCode ?? 502, h);
        upRes.pipe(res);
      });
      up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      req.pipe(up);
    };
  } else {
    const { createProxyMiddleware } = requireGw('http-proxy-middleware');
    const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256 });
    const proxy = createProxyMiddleware({ target, agent, xfwd: true, logger: undefined });
    if (kind === 'hpm-bare') handler = (req, res) => proxy(req, res, () => res.writeHead(404).end());
    else {
      const express = requireGw('express');
      const app = express();
      app.use('/api/v1', createProxyMiddleware({ target: `${target}/api/v1`, agent, xfwd: true }));
      handler = app;
    }
  }
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.listen(port, HOST, () => process.send?.('ready'));
}

// ---------------------------------------------------------------- orchestration

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

async function main() {
  const duration = arg('duration', 10);
  const warmup = arg('warmup', 2);
  const rounds = arg('rounds', 2);
  const connections = arg('connections', 50);
  const compare = process.argv.includes('--compare');
  const autocannon = requireGw('autocannon');
  const children = [];
  const spawnChild = (args, env = {}) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    return child;
  };
  const stopAll = () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('exit', stopAll);

  try {
    const upstreamPort = await freePort();
    // --upstream stub: a bare node:http server (the cheapest possible upstream, the
    // harshest ratio); default: a real service built with the kit.
    const upstreamKind = process.argv.includes('--upstream') ? process.argv[process.argv.indexOf('--upstream') + 1] : 'service';
    const upstream =
      upstreamKind === 'stub'
        ? spawnChild([fileURLToPath(import.meta.url), '--stub', String(upstreamPort)])
        : spawnChild(['--import', 'tsx', '--conditions=development', fileURLToPath(import.meta.url), '--service', String(upstreamPort)]);
    await waitFor(`http://${HOST}:${upstreamPort}/healthz`, upstream, 'upstream stub', { attempts: 100 });

    const gatewayPort = await freePort();
    const gateway = spawnChild(['--import', 'tsx', '--conditions=development', 'gateway/src/main.ts'], {
      PORT: String(gatewayPort),
      APP_STORE_URL: `http://${HOST}:${upstreamPort}`,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    });
    await waitFor(`http://${HOST}:${gatewayPort}/healthz`, gateway, 'gateway', { attempts: 100 });

    const targets = [
      { name: 'direct', port: upstreamPort, pid: null },
      { name: 'gateway', port: gatewayPort, pid: gateway.pid },
    ];
    if (compare) {
      for (const kind of ['http-agent', 'hpm-bare', 'hpm-express']) {
        const port = await freePort();
        const child = spawnChild([fileURLToPath(import.meta.url), '--ref', kind, String(port), String(upstreamPort)]);
        await waitFor(`http://${HOST}:${port}/api/v1/apps`, child, kind, { attempts: 100 });
        targets.push({ name: kind, port, pid: child.pid });
      }
    }

    const sample = await fetch(`http://${HOST}:${gatewayPort}/api/v1/apps`);
    const sampleBody = await sample.json();
    if (!Array.isArray(sampleBody) || sampleBody.length !== 20) throw new Error('gateway did not relay the 20-item answer');
    const bodyBytes = Number(sample.headers.get('content-length'));

    const runs = [];
    console.log(`upstream: ${upstreamKind}`);
    console.log(`load: ${connections} connections, ${warmup} s warm-up + ${duration} s, ${rounds} rounds, ${bodyBytes}-byte JSON answer`);
    for (let round = 1; round <= rounds; round++) {
      for (const t of targets) {
        const url = `http://${HOST}:${t.port}/api/v1/apps`;
        await autocannon({ url, connections, duration: warmup });
        const up0 = cpuMs(upstream.pid);
        const px0 = t.pid ? cpuMs(t.pid) : null;
        const self0 = process.cpuUsage();
        const r = await autocannon({ url, connections, duration });
        const self = process.cpuUsage(self0);
        const n = r.requests.total || 1;
        const up1 = cpuMs(upstream.pid);
        const px1 = t.pid ? cpuMs(t.pid) : null;
        const run = {
          round,
          target: t.name,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          cpuUsPerReq: {
            upstream: up0 !== null && up1 !== null ? +(((up1 - up0) * 1000) / n).toFixed(1) : null,
            proxy: px0 !== null && px1 !== null ? +(((px1 - px0) * 1000) / n).toFixed(1) : null,
            loadGenerator: +((self.user + self.system) / n).toFixed(1),
          },
        };
        runs.push(run);
        console.log(
          `round ${round}  ${t.name.padEnd(12)} ${String(run.rps).padStart(7)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms` +
            `  cpu µs/req upstream ${run.cpuUsPerReq.upstream ?? '-'} proxy ${run.cpuUsPerReq.proxy ?? '-'} autocannon ${run.cpuUsPerReq.loadGenerator}` +
            (run.non2xx || run.errors ? `  non2xx ${run.non2xx} errors ${run.errors}` : ''),
        );
      }
    }

    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = targets.map((t) => {
      const rs = runs.filter((r) => r.target === t.name);
      return {
        target: t.name,
        rps: Math.round(mean(rs.map((r) => r.rps))),
        p50: +mean(rs.map((r) => r.p50)).toFixed(2),
        p99: +mean(rs.map((r) => r.p99)).toFixed(2),
        proxyCpuUsPerReq: t.pid ? +mean(rs.map((r) => r.cpuUsPerReq.proxy ?? 0)).toFixed(1) : null,
        failures: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
      };
    });
    const direct = summary[0].rps;
    for (const s of summary) s.ratio = +(s.rps / direct).toFixed(3);

    console.log('\n| target | req/s | p50 ms | p99 ms | proxy CPU µs/req | ratio |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const s of summary) {
      console.log(`| ${s.target} | ${s.rps} | ${s.p50} | ${s.p99} | ${s.proxyCpuUsPerReq ?? '-'} | ${s.ratio} |`);
    }
    const ratio = summary[1].ratio;
    const failures = summary[1].failures;
    const machine = {
      nproc: os.availableParallelism?.() ?? os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
    };
    console.log(`\nmachine: ${machine.nproc} CPUs (${machine.cpu}), node ${machine.node}, load average ${machine.loadavgAtEnd.join(' ')}`);
    console.log(`gateway/direct = ${ratio} (threshold ${THRESHOLD})${failures ? `, ${failures} failed requests` : ''}`);

    const date = new Date().toISOString().slice(0, 10);
    const out = path.join(ROOT, 'bench', 'results', `gateway-${date}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), machine, load: { upstream: upstreamKind, connections, warmup, duration, rounds, bodyBytes }, runs, summary, ratio, threshold: THRESHOLD }, null, 2)}\n`,
    );
    console.log(`results: ${path.relative(ROOT, out)}`);
    process.exitCode = ratio >= THRESHOLD && failures === 0 ? 0 : 1;
  } finally {
    stopAll();
  }
}

if (process.argv[2] === '--stub') runStub(Number(process.argv[3]));
else if (process.argv[2] === '--service') runServiceUpstream(Number(process.argv[3]));
else if (process.argv[2] === '--ref') runReference(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
else main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
