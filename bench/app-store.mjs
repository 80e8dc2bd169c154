#!/usr/bin/env node
// App-store listing benchmark (README.md, "App store"). Seeds 100,000 apps into a dedicated
// schema `app_store_bench` of the `svc` database (dropped and re-created on every run, dropped
// again at the end unless --keep), starts the BUILT app-store and gateway (`node dist/main.js`,
// as production runs them), and drives them with autocannon at 50 connections:
//   healthz   GET /healthz of the app-store itself (the reference)
//   listing   GET /api/v1/apps                      through the gateway
//   category  GET /api/v1/apps?category=games       through the gateway
//   search    GET /api/v1/apps?q=<word>             through the gateway
//   search-cjk GET /api/v1/apps?q=<Chinese word>    through the gateway (reported, not gated)
// Targets: every gated case p99 < 50 ms and >= 40 % of the healthz req/s of the same run.
// Also prints EXPLAIN (ANALYZE, BUFFERS) of the listing and search SQL (the SQL the service
// runs, built by its own dist/domain/listing-query.js). Writes bench/results/app-store-<date>.json.
// Usage, from the repository root, after `pnpm build` (wrap in `flock /tmp/bench.lock`):
//   node bench/app-store.mjs [--rows 100000] [--duration 10] [--warmup 2] [--rounds 1]
//                            [--connections 50] [--keep] [--skip-seed]
// Rate limits: the app-store runs with RATE_LIMIT_SCALE=1000000 (honoured outside
// NODE_ENV=production only, refused at start in production), so the limiter still runs (its
// Redis round trip is part of the measured cost) but one load generator on one IP is never
// throttled.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs } from './lib/process-cpu.mjs';
import { SEARCH_CJK, SEARCH_WORD, seedApps } from './lib/app-store-seed.mjs';
import { ensureDatabase } from './lib/database.mjs';
import { HOST, freePort, waitFor } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE = path.join(ROOT, 'services', 'app-store');
const requireGw = createRequire(path.join(ROOT, 'gateway', 'package.json'));
const requireSvc = createRequire(path.join(SERVICE, 'package.json'));
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const SCHEMA = 'app_store_bench';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const P99_LIMIT_MS = 50;
const MIN_RATIO = 0.4;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const flag = (name) => process.argv.includes(`--${name}`);

// ---------------------------------------------------------------- query plans

async function explain(pg, label, query) {
  const { rows } = await pg.query(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, query.params);
  return { label, sql: query.sql, params: query.params, plan: rows.map((r) => r['QUERY PLAN']) };
}

// ---------------------------------------------------------------- main

async function main() {
  const rows = arg('rows', 100_000);
  const duration = arg('duration', 10);
  const warmup = arg('warmup', 2);
  const rounds = arg('rounds', 1);
  const connections = arg('connections', 50);
  for (const built of [
    path.join(SERVICE, 'dist', 'main.js'),
    path.join(ROOT, 'gateway', 'dist', 'main.js'),
  ]) {
    if (!existsSync(built))
      throw new Error(`${path.relative(ROOT, built)} is missing: run \`pnpm build\` first`);
  }
  const autocannon = requireGw('autocannon');
  const pgModule = requireRoot('pg');
  const { Redis } = requireSvc('ioredis');
  const { listingPageQuery, listingCountQuery } = await import(
    pathToFileURL(path.join(SERVICE, 'dist', 'domain', 'listing-query.js')).href
  );

  await ensureDatabase(DATABASE_URL, SCHEMA);
  const pg = new pgModule.Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const redisPrefix = `bench:app-store:${randomBytes(4).toString('hex')}:`;
  const children = [];
  const stopAll = () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('exit', stopAll);

  try {
    if (!flag('skip-seed')) {
      const ms = await seedApps(pg, rows, SCHEMA);
      console.log(`seeded ${rows} apps into ${SCHEMA} in ${(ms / 1000).toFixed(1)} s`);
    }
    await pg.query(`SET search_path TO ${SCHEMA}`);
    const counts = (
      await pg.query(
        `SELECT
        count(*) FILTER (WHERE status = 'approved')::int AS approved,
        count(*) FILTER (WHERE status = 'approved' AND category = 'games')::int AS games,
        count(*) FILTER (WHERE status = 'approved' AND search_document @@ svc_search_query($1))::int AS search,
        count(*) FILTER (WHERE status = 'approved' AND search_document @@ svc_search_query($2))::int AS search_cjk
      FROM apps`,
        [SEARCH_WORD, SEARCH_CJK],
      )
    ).rows[0];
    console.log(
      `approved ${counts.approved}, games ${counts.games}, q=${SEARCH_WORD} ${counts.search}, q=${SEARCH_CJK} ${counts.search_cjk}`,
    );

    const plans = [
      await explain(pg, 'listing (first page)', listingPageQuery({}, 50, 0)),
      await explain(pg, 'listing, category=games', listingPageQuery({ category: 'games' }, 50, 0)),
      await explain(pg, `search q=${SEARCH_WORD}`, listingPageQuery({ q: SEARCH_WORD }, 50, 0)),
      await explain(pg, `search q=${SEARCH_CJK}`, listingPageQuery({ q: SEARCH_CJK }, 50, 0)),
      await explain(pg, 'total, no filter (cached 10 s in Redis)', listingCountQuery({})),
      await explain(
        pg,
        `total, q=${SEARCH_WORD} (cached 10 s in Redis)`,
        listingCountQuery({ q: SEARCH_WORD }),
      ),
    ];
    for (const p of plans) {
      console.log(`\n-- ${p.label}\n${p.plan.join('\n')}`);
    }

    const spawnChild = (cwd, env) => {
      const child = spawn(process.execPath, ['dist/main.js'], {
        cwd,
        env: { ...process.env, LOG_LEVEL: 'info', REDIS_URL, REDIS_PREFIX: redisPrefix, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return child;
    };
    const storePort = await freePort();
    const store = spawnChild(SERVICE, {
      PORT: String(storePort),
      NODE_ENV: 'development',
      DATABASE_URL,
      APP_STORE_DATABASE_URL: `${DATABASE_URL}?schema=${SCHEMA}`,
      RATE_LIMIT_SCALE: '1000000',
      APP_STORE_LISTING_CACHE_MS: String(arg('listing-cache-ms', 1000)),
    });
    await waitFor(`http://${HOST}:${storePort}/readyz`, store, 'app-store');
    const gatewayPort = await freePort();
    const gateway = spawnChild(path.join(ROOT, 'gateway'), {
      PORT: String(gatewayPort),
      NODE_ENV: 'production',
      // Production refuses to start without it (docs/decisions/013-operations-port.md).
      PUBLIC_BASE_URL: `http://${HOST}:${gatewayPort}`,
      APP_STORE_URL: `http://${HOST}:${storePort}`,
    });
    await waitFor(`http://${HOST}:${gatewayPort}/healthz`, gateway, 'gateway');

    const gw = `http://${HOST}:${gatewayPort}`;
    const cases = [
      { name: 'healthz', url: `http://${HOST}:${storePort}/healthz`, gated: false, via: 'direct' },
      { name: 'listing', url: `${gw}/api/v1/apps`, gated: true, via: 'gateway' },
      { name: 'category', url: `${gw}/api/v1/apps?category=games`, gated: true, via: 'gateway' },
      { name: 'search', url: `${gw}/api/v1/apps?q=${SEARCH_WORD}`, gated: true, via: 'gateway' },
      {
        name: 'search-cjk',
        url: `${gw}/api/v1/apps?q=${encodeURIComponent(SEARCH_CJK)}`,
        gated: false,
        via: 'gateway',
      },
    ];
    for (const c of cases.filter((c) => c.name !== 'healthz')) {
      const res = await fetch(c.url);
      const body = await res.json();
      if (res.status !== 200 || body.apps.length === 0)
        throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      c.total = body.meta.total;
      c.bytes = Number(res.headers.get('content-length')) || JSON.stringify(body).length;
    }

    console.log(
      `\nload: ${connections} connections, ${warmup} s warm-up + ${duration} s per case, ${rounds} round(s)`,
    );
    const runs = [];
    for (let round = 1; round <= rounds; round++) {
      for (const c of cases) {
        await autocannon({ url: c.url, connections, duration: warmup });
        const s0 = cpuMs(store.pid);
        const g0 = cpuMs(gateway.pid);
        const r = await autocannon({ url: c.url, connections, duration });
        const n = r.requests.total || 1;
        const run = {
          round,
          case: c.name,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          storeCpuUsPerReq: +(((cpuMs(store.pid) - s0) * 1000) / n).toFixed(1),
          gatewayCpuUsPerReq: +(((cpuMs(gateway.pid) - g0) * 1000) / n).toFixed(1),
        };
        runs.push(run);
        console.log(
          `round ${round}  ${c.name.padEnd(10)} ${String(run.rps).padStart(6)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms` +
            `  cpu µs/req app-store ${run.storeCpuUsPerReq} gateway ${run.gatewayCpuUsPerReq}` +
            (run.non2xx || run.errors ? `  non2xx ${run.non2xx} errors ${run.errors}` : ''),
        );
      }
    }

    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = cases.map((c) => {
      const rs = runs.filter((r) => r.case === c.name);
      return {
        case: c.name,
        via: c.via,
        url: c.url.replace(/^http:\/\/[^/]+/, ''),
        matches: c.total ?? null,
        bytes: c.bytes ?? null,
        rps: Math.round(mean(rs.map((r) => r.rps))),
        p50: +mean(rs.map((r) => r.p50)).toFixed(2),
        p99: +mean(rs.map((r) => r.p99)).toFixed(2),
        storeCpuUsPerReq: +mean(rs.map((r) => r.storeCpuUsPerReq)).toFixed(1),
        failures: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
        gated: c.gated,
      };
    });
    const healthz = summary[0].rps;
    for (const s of summary) s.ratio = +(s.rps / healthz).toFixed(3);
    console.log(
      '\n| case | via | matches | req/s | p50 ms | p99 ms | app-store CPU µs/req | ratio to healthz |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const s of summary) {
      console.log(
        `| ${s.case} \`${s.url}\` | ${s.via} | ${s.matches ?? '-'} | ${s.rps} | ${s.p50} | ${s.p99} | ${s.storeCpuUsPerReq} | ${s.ratio} |`,
      );
    }
    const failed = summary.filter(
      (s) => s.gated && (s.p99 >= P99_LIMIT_MS || s.ratio < MIN_RATIO || s.failures > 0),
    );
    const machine = {
      nproc: os.availableParallelism?.() ?? os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
    };
    console.log(
      `\nmachine: ${machine.nproc} CPUs (${machine.cpu}), node ${machine.node}, load average ${machine.loadavgAtEnd.join(' ')}`,
    );
    console.log(
      failed.length === 0
        ? 'targets met (p99 < 50 ms, >= 0.40 of healthz)'
        : `targets MISSED: ${failed.map((s) => s.case).join(', ')}`,
    );

    const out = path.join(
      ROOT,
      'bench',
      'results',
      `app-store-${new Date().toISOString().slice(0, 10)}.json`,
    );
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), machine, rows, counts, load: { connections, warmup, duration, rounds }, runs, summary, plans }, null, 2)}\n`,
    );
    console.log(`results: ${path.relative(ROOT, out)}`);
    process.exitCode = failed.length === 0 ? 0 : 1;
  } finally {
    stopAll();
    await Promise.all(
      children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))),
    );
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    if (!flag('keep')) await pg.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await pg.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
