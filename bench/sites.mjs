#!/usr/bin/env node
// Sites API read benchmark: GET /api/sites (hot, recent, tag filter, Latin and Chinese
// search, random deep pages up to the cap) through the real gateway against the built sites service on
// 100 000 seeded sites, next to the sites service's own /healthz in the same run. See
// README.md ("Sites API"). Usage, from the repository root, after `pnpm build` of
// services/sites and gateway:
//   flock /tmp/bench.lock node bench/sites.mjs [--duration 10] [--warmup 2] [--connections 50]
// Three phases: the service as configured by default (page cache SITES_LIST_CACHE_MS=5000,
// count cache SITES_COUNT_CACHE_MS=30000); page cache off (every request runs the page
// query, counts cached); both off (page query + count(*) per request). Exit code 1 when a
// default-phase listing case has p99 >= 50 ms or < 40 % of /healthz req/s, or any
// request failed.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST, freePort, waitFor } from './lib/processes.mjs';
import { productionSettings } from './lib/production.mjs';
import { BENCH_DATABASE_URL, BENCH_SCHEMA, seedSites } from './sites-seed.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const autocannon = createRequire(path.join(ROOT, 'gateway', 'package.json'))('autocannon');
const P99_LIMIT_MS = 50;
const RATIO_LIMIT = 0.4;

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const q = encodeURIComponent;
/** The listing cases; `pages` makes each request ask a random page in 1..pages. */
const CASES = [
  { name: 'hot', path: '/api/sites' },
  { name: 'recent', path: '/api/sites?sort=recent' },
  { name: 'tag', path: `/api/sites?tag=${q('技术')}` },
  { name: 'search latin', path: '/api/sites?search=nova' },
  { name: 'search chinese', path: `/api/sites?search=${q('旅行')}` },
  { name: 'hot random page 1-166', path: '/api/sites', pages: 166 },
  { name: 'hot, no gzip', path: '/api/sites', headers: { 'accept-encoding': 'identity' } },
  { name: 'hot direct, no gzip', path: '/api/sites', direct: true, headers: { 'accept-encoding': 'identity' } },
];
const GATED = ['hot', 'recent', 'tag', 'search latin', 'search chinese'];
/** As deployed (both caches on), then the database path with counts cached, then nothing cached. */
const PHASES = [
  { cacheMs: 5000, countMs: 30000, rounds: 2, cases: CASES.map((c) => c.name) },
  { cacheMs: 0, countMs: 30000, rounds: 1, cases: ['hot', 'tag', 'search latin', 'search chinese', 'hot random page 1-166'] },
  { cacheMs: 0, countMs: 0, rounds: 1, cases: ['hot', 'search latin'] },
];
/** What browsers send; the service serves cached pages pre-gzipped. */
const BROWSER_HEADERS = { 'accept-encoding': 'gzip, deflate, br' };

async function measure(url, { connections, duration, warmup, pages, headers }) {
  const opts = { url, connections, duration, headers: headers ?? BROWSER_HEADERS };
  if (pages) {
    opts.requests = [{ setupRequest: (req) => ({ ...req, path: `${req.path}?page=${1 + Math.floor(Math.random() * pages)}` }) }];
  }
  if (warmup > 0) await autocannon({ ...opts, duration: warmup });
  const r = await autocannon(opts);
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    bytesPerReq: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

function explainPlans() {
  const sql = (q) => `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q}`;
  const cols = 'id, url, title, description, tags, hot_score, first_submitted_at';
  const queries = {
    'hot page 1': `SELECT ${cols} FROM sites s WHERE true ORDER BY s.hot_score DESC, s.id LIMIT 60 OFFSET 0`,
    'hot page 200': `SELECT ${cols} FROM sites s WHERE true ORDER BY s.hot_score DESC, s.id LIMIT 60 OFFSET 11940`,
    'recent page 1': `SELECT ${cols} FROM sites s WHERE true ORDER BY s.first_submitted_at DESC, s.id LIMIT 60 OFFSET 0`,
    'tag page 1': `SELECT ${cols} FROM sites s WHERE s.tags @> ARRAY['技术']::text[] ORDER BY s.hot_score DESC, s.id LIMIT 60`,
    'search latin page 1': `SELECT ${cols} FROM sites s WHERE s.search_document @@ svc_search_query('nova') ORDER BY s.hot_score DESC, s.id LIMIT 60`,
    'search chinese page 1': `SELECT ${cols} FROM sites s WHERE s.search_document @@ svc_search_query('旅行') ORDER BY s.hot_score DESC, s.id LIMIT 60`,
    'count all': 'SELECT count(*) FROM sites s WHERE true',
    'count tag': `SELECT count(*) FROM sites s WHERE s.tags @> ARRAY['技术']::text[]`,
    'count search latin': `SELECT count(*) FROM sites s WHERE s.search_document @@ svc_search_query('nova')`,
  };
  const out = {};
  for (const [name, q] of Object.entries(queries)) {
    out[name] = execFileSync('psql', [BENCH_DATABASE_URL, '-qAt', '-c', `SET search_path TO ${BENCH_SCHEMA}`, '-c', sql(q)], {
      encoding: 'utf8',
    }).trim();
  }
  return out;
}

async function main() {
  const load = { connections: arg('connections', 50), duration: arg('duration', 10), warmup: arg('warmup', 2) };
  const loadavgAtStart = os.loadavg().map((x) => +x.toFixed(2));
  const seed = await seedSites({ count: 100_000 });
  console.log(seed.seeded ? `seeded 100 000 sites in ${seed.ms} ms` : '100 000 sites already seeded');

  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const children = [];
  const stopAll = () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('exit', stopAll);
  const start = (file, env) => {
    const child = spawn(process.execPath, [file], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };

  const phases = [];
  try {
    for (const phase of PHASES) {
      const { cacheMs, countMs } = phase;
      const cases = CASES.filter((c) => phase.cases.includes(c.name));
      const sitesPort = await freePort();
      const gatewayPort = await freePort();
      // What production requires (IP_HASH_SECRET, PUBLIC_BASE_URL = this gateway), else both refuse to start.
      const production = productionSettings({ publicBaseUrl: `http://${HOST}:${gatewayPort}` });
      const sites = start('services/sites/dist/main.js', {
        ...production,
        PORT: String(sitesPort),
        DATABASE_URL: BENCH_DATABASE_URL,
        REDIS_PREFIX: 'bench:sites:',
        JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        SITES_LIST_CACHE_MS: String(cacheMs),
        SITES_COUNT_CACHE_MS: String(countMs),
      });
      const gateway = start('gateway/dist/main.js', {
        ...production,
        PORT: String(gatewayPort),
        SITES_URL: `http://${HOST}:${sitesPort}`,
      });
      await waitFor(`http://${HOST}:${sitesPort}/readyz`, sites, 'sites');
      await waitFor(`http://${HOST}:${gatewayPort}/healthz`, gateway, 'gateway');
      const sample = await (await fetch(`http://${HOST}:${gatewayPort}/api/sites`)).json();
      // Past 1,000 matches the total is PostgreSQL's estimate, rounded (docs/decisions/038-growth.md).
      if (Math.abs(sample.total - 100_000) > 2_000 || sample.sites.length !== 60) throw new Error('unexpected listing answer through the gateway');

      console.log(
        `\nphase: SITES_LIST_CACHE_MS=${cacheMs} SITES_COUNT_CACHE_MS=${countMs}; ${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s per case, ${phase.rounds} round(s)`,
      );
      // JIT and connection warm-up of both processes on every path before measuring.
      for (const c of cases) {
        await measure(`http://${HOST}:${gatewayPort}${c.path}`, { ...load, duration: 1, warmup: 0, pages: c.pages, headers: c.headers });
      }
      const runs = [];
      for (let round = 1; round <= phase.rounds; round++) {
        // /healthz is measured in every round: ratios compare figures taken minutes apart at most.
        const healthz = await measure(`http://${HOST}:${sitesPort}/healthz`, load);
        runs.push({ round, case: 'sites /healthz (direct)', ...healthz, ratio: 1 });
        console.log(`  r${round} ${'sites /healthz (direct)'.padEnd(24)} ${String(healthz.rps).padStart(6)} req/s  p50 ${healthz.p50} ms  p99 ${healthz.p99} ms`);
        for (const c of cases) {
          const url = `http://${HOST}:${c.direct ? sitesPort : gatewayPort}${c.path}`;
          const r = await measure(url, { ...load, pages: c.pages, headers: c.headers });
          r.ratio = +(r.rps / healthz.rps).toFixed(3);
          runs.push({ round, case: c.name, path: c.path, ...r });
          console.log(
            `  r${round} ${c.name.padEnd(24)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${r.bytesPerReq} B/req  ratio ${r.ratio}` +
              (r.failures ? `  FAILURES ${r.failures}` : ''),
          );
        }
      }
      const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const summary = ['sites /healthz (direct)', ...cases.map((c) => c.name)].map((name) => {
        const rs = runs.filter((r) => r.case === name);
        return {
          case: name,
          rps: Math.round(mean(rs.map((r) => r.rps))),
          p50: +mean(rs.map((r) => r.p50)).toFixed(1),
          p99: +mean(rs.map((r) => r.p99)).toFixed(1),
          worstP99: Math.max(...rs.map((r) => r.p99)),
          ratio: +mean(rs.map((r) => r.ratio)).toFixed(3),
          bytesPerReq: rs[0].bytesPerReq,
          failures: rs.reduce((a, r) => a + r.failures, 0),
        };
      });
      console.log(`  mean of ${phase.rounds} round(s):`);
      console.log('  | case | req/s | p50 ms | p99 ms (mean / worst) | B/req | ratio to /healthz |');
      console.log('  |---|---:|---:|---:|---:|---:|');
      for (const x of summary) console.log(`  | ${x.case} | ${x.rps} | ${x.p50} | ${x.p99} / ${x.worstP99} | ${x.bytesPerReq} | ${x.ratio} |`);
      phases.push({ cacheMs, countMs, runs, summary });
      stopAll();
      await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
      children.length = 0;
    }
  } finally {
    stopAll();
  }

  const plans = explainPlans();
  for (const [name, plan] of Object.entries(plans)) console.log(`\n-- ${name}\n${plan}`);

  const [main] = phases;
  const gated = main.summary.filter((r) => GATED.includes(r.case));
  const failures = phases.flatMap((p) => p.summary).reduce((a, r) => a + r.failures, 0);
  const ok = failures === 0 && gated.every((r) => r.p99 < P99_LIMIT_MS && r.ratio >= RATIO_LIMIT);
  const machine = {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    loadavgAtStart,
    loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
  };
  console.log(
    `\nmachine: ${machine.nproc} CPUs (${machine.cpu}), node ${machine.node}, load average at start ${loadavgAtStart.join(' ')}, at end ${machine.loadavgAtEnd.join(' ')}`,
  );
  console.log(`target (default phase): p99 < ${P99_LIMIT_MS} ms and >= ${RATIO_LIMIT} of /healthz: ${ok ? 'met' : 'NOT met'}`);
  const out = path.join(ROOT, 'bench', 'results', `sites-${new Date().toISOString().slice(0, 10)}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), machine, load, phases, plans, ok }, null, 2)}\n`);
  console.log(`results: ${path.relative(ROOT, out)}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
