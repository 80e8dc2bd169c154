#!/usr/bin/env node
// Translate benchmark: POST /api/translate answered from the Redis cache, through the real
// gateway (and directly, for comparison), with the built processes. See README.md
// ("Translate"). Usage, from the repository root, after
// `pnpm --filter @svc/translate --filter @svc/gateway build`:
//   flock /tmp/bench.lock node bench/translate.mjs [--duration 10] [--warmup 2] [--rate 300] [--connections 10,50]
// Cases: an open-loop paced load (--rate requests/s, below saturation: the latency a user
// sees), the same pacing on the cheapest proxied answer (the floor), then closed-loop
// saturation with autocannon at each --connections count (throughput).
// Exit code 1 when the gateway p99 of the paced case is 10 ms or more, when any request
// fails, or when a benchmark request reached the AI (i.e. was not a cache hit).
// Traffic stays on 127.0.0.1; the AI is a loopback fake of the Messages API.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './lib/process-cpu.mjs';
import { HOST, freePort, sleep, waitFor } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireGw = createRequire(path.join(ROOT, 'gateway', 'package.json'));
const P99_TARGET_MS = 10;

// ---------------------------------------------------------------- child mode: the fake AI

/** The tests' fake Anthropic (services/translate/test/fake-anthropic.ts), run through tsx;
 *  answers `count` messages on IPC with the number of /v1/messages requests it served. */
async function runFake() {
  const { startFakeAnthropic } = await import(
    path.join(ROOT, 'services/translate/test/fake-anthropic.ts')
  );
  const fake = await startFakeAnthropic();
  process.on('message', (m) => {
    if (m === 'count') process.send?.({ count: fake.requests.length });
  });
  process.send?.({ baseURL: fake.baseURL });
}

// ---------------------------------------------------------------- orchestration

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}

/**
 * Open-loop load at a constant rate: request i is sent at start + i/rate whatever the
 * earlier ones are doing (autocannon's rate option sends each second's quota as a burst,
 * which measures its own queueing). Keep-alive sockets, as the gateway and browsers use.
 * Latency is timed from the actual send. Returns the fields of an autocannon result the
 * report reads.
 */
async function pacedLoad({ url, overallRate, duration, requests }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const { hostname, port } = new URL(url);
  const latencies = [];
  const statusCodeStats = {};
  let errors = 0;
  const total = Math.round(overallRate * duration);
  const start = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / overallRate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const req = requests[i % requests.length];
    pending.push(
      new Promise((resolve) => {
        const sent = performance.now();
        const r = http.request(
          { host: hostname, port, method: req.method, path: req.path, headers: req.headers, agent },
          (res) => {
            res.resume();
            res.on('end', () => {
              latencies.push(performance.now() - sent);
              statusCodeStats[res.statusCode] = {
                count: (statusCodeStats[res.statusCode]?.count ?? 0) + 1,
              };
              resolve();
            });
          },
        );
        r.on('error', () => {
          errors++;
          resolve();
        });
        r.end(req.body);
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (q) =>
    +(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(2);
  return {
    requests: { average: latencies.length / elapsed, total: latencies.length },
    latency: { p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), max: pct(1) },
    statusCodeStats,
    errors,
    timeouts: 0,
  };
}

/** The request mix: two sentences per language, each to another language, plus one
 *  2000-character Chinese text (the most expensive input to detect). All end up cached. */
function requestBodies() {
  const samples = JSON.parse(
    readFileSync(path.join(ROOT, 'services/translate/test/fixtures/language-samples.json'), 'utf8'),
  );
  const codes = Object.keys(samples).filter((k) => !k.startsWith('_'));
  const bodies = [];
  codes.forEach((code, i) => {
    const target = codes[(i + 3) % codes.length]; // never the same language, nor zh-TW → zh-HK
    for (const text of samples[code].slice(0, 2)) bodies.push({ text, targetLang: target });
  });
  bodies.push({ text: samples['zh-CN'].join('').repeat(20).slice(0, 2000), targetLang: 'en' });
  return bodies;
}

async function main() {
  const duration = Number(arg('duration', 10));
  const warmup = Number(arg('warmup', 2));
  const rate = Number(arg('rate', 300));
  const connectionList = String(arg('connections', '10,50')).split(',').map(Number);
  // 'floor': the same pacing on the cheapest answer the translate process gives through the
  // gateway (GET /api/translate → the kit's 405 JSON): what the machine and the stack cost
  // at that moment without any translate work, to read the other figures against.
  const cases = [
    { kind: 'floor', connections: null, overallRate: rate, expectStatus: 405 },
    { kind: 'paced', connections: null, overallRate: rate, expectStatus: 200 },
    ...connectionList.map((connections) => ({ kind: 'saturated', connections, expectStatus: 200 })),
  ];
  const autocannon = requireGw('autocannon');
  const children = [];
  const spawnChild = (args, env = {}, ipc = false) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', ...(ipc ? ['ipc'] : [])],
    });
    children.push(child);
    return child;
  };
  const stopAll = () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('exit', stopAll);

  try {
    const fake = spawnChild(
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--fake'],
      {},
      true,
    );
    const { baseURL } = await new Promise((resolve, reject) => {
      fake.once('message', resolve);
      fake.once('exit', (code) => reject(new Error(`fake AI exited with ${code}`)));
    });
    const fakeCount = () =>
      new Promise((resolve) => {
        fake.once('message', (m) => resolve(m.count));
        fake.send('count');
      });

    // The built service, as production runs it, with the bench-only raised limit: all
    // autocannon traffic comes from one address, and the gateway rewrites X-Forwarded-For.
    const redisPrefix = `bench:translate:${randomBytes(4).toString('hex')}:`;
    const translatePort = await freePort();
    const translate = spawnChild(['services/translate/dist/main.js'], {
      PORT: String(translatePort),
      NODE_ENV: 'development', // TRANSLATE_RATE_LIMIT_PER_MINUTE above 20 is refused in production
      LOG_LEVEL: 'info',
      REDIS_PREFIX: redisPrefix,
      ANTHROPIC_API_KEY: 'sk-bench',
      ANTHROPIC_BASE_URL: baseURL,
      TRANSLATE_RATE_LIMIT_PER_MINUTE: '100000000',
      // V8 flags of the measured processes only (e.g. --max-semi-space-size=16, as deployed).
      NODE_OPTIONS: process.env.SERVICE_NODE_OPTIONS ?? '',
    });
    await waitFor(`http://${HOST}:${translatePort}/readyz`, translate, 'translate');

    const gatewayPort = await freePort();
    const gateway = spawnChild(['gateway/dist/main.js'], {
      PORT: String(gatewayPort),
      TRANSLATE_URL: `http://${HOST}:${translatePort}`,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      // Production refuses to start without it (docs/decisions/013-operations-port.md).
      PUBLIC_BASE_URL: `http://${HOST}:${gatewayPort}`,
      NODE_OPTIONS: process.env.SERVICE_NODE_OPTIONS ?? '',
    });
    await waitFor(`http://${HOST}:${gatewayPort}/healthz`, gateway, 'gateway');

    // Fill the cache through the gateway: one AI call per distinct body.
    const bodies = requestBodies();
    for (const body of bodies) {
      const res = await fetch(`http://${HOST}:${gatewayPort}/api/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status !== 200 || typeof json.translated !== 'string') {
        throw new Error(`warm-up answered ${res.status}: ${JSON.stringify(json)}`);
      }
    }
    const aiCallsAfterWarmup = await fakeCount();
    if (aiCallsAfterWarmup !== bodies.length) {
      throw new Error(
        `expected ${bodies.length} AI calls to fill the cache, the fake saw ${aiCallsAfterWarmup}`,
      );
    }

    const requests = bodies.map((b) => ({
      method: 'POST',
      path: '/api/translate',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(b),
    }));
    const targets = [
      { name: 'gateway', port: gatewayPort },
      { name: 'direct', port: translatePort },
    ];
    const runs = [];
    console.log(
      `load: ${bodies.length} distinct cached requests in rotation, ${warmup} s warm-up + ${duration} s per case; paced ${rate} req/s (open loop), then saturated at ${connectionList.join(', ')} connections`,
    );
    for (const c of cases) {
      for (const t of targets) {
        const url = `http://${HOST}:${t.port}`;
        const load = {
          url,
          connections: c.connections ?? undefined, // autocannon only; the paced load opens what it needs
          overallRate: c.overallRate,
          requests: c.kind === 'floor' ? [{ method: 'GET', path: '/api/translate' }] : requests,
        };
        const generate = c.overallRate ? pacedLoad : autocannon;
        await generate({ ...load, duration: warmup });
        const cpu0 = { translate: cpuMs(translate.pid), gateway: cpuMs(gateway.pid) };
        const r = await generate({ ...load, duration });
        const n = r.requests.total || 1;
        const cpu1 = { translate: cpuMs(translate.pid), gateway: cpuMs(gateway.pid) };
        const perReq = (k) =>
          cpu0[k] !== null && cpu1[k] !== null
            ? +(((cpu1[k] - cpu0[k]) * 1000) / n).toFixed(1)
            : null;
        const run = {
          target: t.name,
          load: c.kind,
          connections: c.connections,
          rate: c.overallRate ?? null,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p90: r.latency.p90,
          p99: r.latency.p99,
          max: r.latency.max,
          total: r.requests.total,
          unexpectedStatus: r.requests.total - (r.statusCodeStats?.[c.expectStatus]?.count ?? 0),
          errors: r.errors + r.timeouts,
          cpuUsPerReq: {
            translate: perReq('translate'),
            gateway: t.name === 'gateway' ? perReq('gateway') : null,
          },
        };
        runs.push(run);
        console.log(
          `${t.name.padEnd(8)} ${c.kind.padEnd(9)} c=${String(c.connections ?? '-').padStart(3)} ${String(run.rps).padStart(6)} req/s  p50 ${run.p50} ms  p90 ${run.p90} ms  p99 ${run.p99} ms  max ${run.max} ms` +
            `  cpu µs/req translate ${run.cpuUsPerReq.translate ?? '-'} gateway ${run.cpuUsPerReq.gateway ?? '-'}` +
            (run.unexpectedStatus || run.errors
              ? `  unexpected status ${run.unexpectedStatus} errors ${run.errors}`
              : ''),
        );
      }
    }
    const aiCallsDuringBench = (await fakeCount()) - aiCallsAfterWarmup;

    console.log(
      '\n| target | load | connections / rate | req/s | p50 ms | p90 ms | p99 ms | translate CPU µs/req | gateway CPU µs/req |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of runs) {
      console.log(
        `| ${r.target} | ${r.load} | ${r.connections ?? `${r.rate} req/s open loop`} | ${r.rps} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.cpuUsPerReq.translate ?? '-'} | ${r.cpuUsPerReq.gateway ?? '-'} |`,
      );
    }
    const machine = {
      nproc: os.availableParallelism?.() ?? os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
    };
    const gate = runs.find((r) => r.target === 'gateway' && r.load === 'paced');
    const floor = runs.find((r) => r.target === 'gateway' && r.load === 'floor');
    const failures = runs.reduce((a, r) => a + r.unexpectedStatus + r.errors, 0);
    console.log(
      `\nmachine: ${machine.nproc} CPUs (${machine.cpu}), node ${machine.node}, load average ${machine.loadavgAtEnd.join(' ')}`,
    );
    console.log(
      `gateway p99 at ${rate} req/s: ${gate.p99} ms (target < ${P99_TARGET_MS} ms; floor ${floor.p99} ms); AI calls during the runs: ${aiCallsDuringBench}` +
        (failures ? `; ${failures} failed requests` : ''),
    );

    const date = new Date().toISOString().slice(0, 10);
    const out = path.join(ROOT, 'bench', 'results', `translate-${date}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), machine, load: { distinctRequests: bodies.length, warmup, duration, rate, connections: connectionList }, runs, aiCallsDuringBench, target: { p99Ms: P99_TARGET_MS, rate } }, null, 2)}\n`,
    );
    console.log(`results: ${path.relative(ROOT, out)}`);
    process.exitCode =
      gate.p99 < P99_TARGET_MS && failures === 0 && aiCallsDuringBench === 0 ? 0 : 1;

    // Leave nothing behind in Redis.
    const { Redis } = createRequire(path.join(ROOT, 'services/translate/package.json'))('ioredis');
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    try {
      await redis.connect();
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } catch {
      // Best effort: the keys expire after 24 h (cache) or a minute (limits) anyway.
    } finally {
      redis.disconnect();
    }
  } finally {
    stopAll();
  }
}

if (process.argv[2] === '--fake') runFake();
else
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
