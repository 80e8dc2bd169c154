#!/usr/bin/env node
// Gateway benchmark, in one run, alternating targets, two rounds:
//  1. a bare node:http upstream answering a 5.6 KB JSON, called directly, through the
//     gateway and through nginx (one worker, keep-alive upstream; skipped with a note when
//     nginx is not installed): req/s and the proxies' CPU µs per request (/proc);
//  2. the real service stack (the kit) called directly and through the gateway.
// See README.md ("Gateway"). Usage, from the repository root:
//   node bench/gateway.mjs [--duration 10] [--warmup 2] [--rounds 2] [--connections 50]
//     [--upstream stub,service] [--gateway src|dist] [--baseline <git rev>] [--cpu-prof] [--compare]
// --baseline runs that revision's gateway (its gateway/src) beside today's (before/after).
// --compare adds reference proxies (plain http.Agent proxy, http-proxy-middleware on a bare
// server and in express) to section 1. --cpu-prof makes the gateways write V8 CPU profiles
// to bench/results/prof/ (summarise with bench/lib/cpuprofile-summary.mjs). Exit code 1 when
// a target is missed: gateway ≤ 60 µs CPU per request and ≥ 0.80 of nginx's req/s (1),
// gateway ≥ 0.80 of direct (2), no failed request. Traffic stays on 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
/** Gateway CPU per proxied request against the bare upstream. */
const CPU_TARGET_US = 60;

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

// ---------------------------------------------------------------- nginx (reference)

/** nginx as the reference proxy: one worker, keep-alive upstream, no access log (the
 *  gateway writes none at info either), the same request id and X-Forwarded-* duties. */
function nginxConfig(dir, port, upstreamPort, extraHeaders = []) {
  const added = extraHeaders.map(([name, value]) => `      add_header ${name} "${value.replace(/"/g, '\\"')}" always;\n`).join('');
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_timeout 65s;
  keepalive_requests 1000000;
  upstream app { server ${HOST}:${upstreamPort}; keepalive 64; keepalive_requests 1000000; }
  server {
    listen ${HOST}:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Request-Id $request_id;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $host;
      add_header X-Request-Id $request_id always;
${added}    }
  }
}
`;
}

/** The nginx binary, or null (the bench then skips it with a note). */
function findNginx() {
  // NGINX_BIN, when set, is the only candidate (NGINX_BIN=none runs the bench without nginx).
  const candidates = process.env.NGINX_BIN ? [process.env.NGINX_BIN] : ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'];
  return candidates.find((bin) => existsSync(bin)) ?? null;
}

// ---------------------------------------------------------------- orchestration

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

function strArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}

/** CPU ms of a process and its children (nginx: master + worker). */
function treeCpuMs(pid) {
  let total = cpuMs(pid);
  if (total === null) return null;
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
      total += cpuMs(Number(child)) ?? 0;
    }
  } catch {
    // no children file: the process alone
  }
  return total;
}

async function main() {
  const duration = arg('duration', 10);
  const warmup = arg('warmup', 2);
  const rounds = arg('rounds', 2);
  const connections = arg('connections', 50);
  const compare = process.argv.includes('--compare');
  // --upstream stub|service: one section only; default both (stub first, then service).
  const sections = strArg('upstream', 'stub,service').split(',');
  // --gateway dist: run the built gateway (gateway/dist, as deployed) instead of the sources via tsx.
  const gatewayBuild = strArg('gateway', 'src');
  // --cpu-prof: the gateways write a V8 CPU profile to bench/results/prof/ when they stop.
  const cpuProf = process.argv.includes('--cpu-prof');
  const autocannon = requireGw('autocannon');
  const children = [];
  const spawnChild = (args, env = {}, bin = process.execPath) => {
    const child = spawn(bin, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', ...(bin === process.execPath ? ['ipc'] : [])],
    });
    children.push(child);
    return child;
  };
  const tempDirs = [];
  const stopAll = () => {
    children.forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
    for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stopAll);
  const profDir = path.join(ROOT, 'bench', 'results', 'prof');
  if (cpuProf) mkdirSync(profDir, { recursive: true });

  // --baseline <git revision>: also runs that revision's gateway/src (extracted under
  // gateway/node_modules/.bench-baseline, so it resolves the same dependencies) beside
  // today's, as `gateway@<rev>`: before/after in one run.
  const baseline = strArg('baseline', null);
  let baselineMain = null;
  if (baseline !== null) {
    const dir = path.join(ROOT, 'gateway', 'node_modules', '.bench-baseline');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    // -r: the files of src/ and of its folders (proxy/, routes/…), as paths under src/.
    const files = spawnSync('git', ['ls-tree', '-r', '--name-only', `${baseline}:gateway/src`], { cwd: ROOT, encoding: 'utf8' });
    if (files.status !== 0) throw new Error(`--baseline ${baseline}: ${files.stderr.trim()}`);
    for (const f of files.stdout.trim().split('\n')) {
      const text = spawnSync('git', ['show', `${baseline}:gateway/src/${f}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 }).stdout;
      mkdirSync(path.dirname(path.join(dir, 'src', f)), { recursive: true });
      writeFileSync(path.join(dir, 'src', f), text);
    }
    baselineMain = path.relative(ROOT, path.join(dir, 'src', 'main.ts'));
  }

  async function startGateway(upstreamPort, main = null) {
    const port = await freePort();
    const prof = cpuProf ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
    const entry =
      main !== null
        ? [...prof, '--import', 'tsx', '--conditions=development', main]
        : gatewayBuild === 'dist'
          ? [...prof, 'gateway/dist/main.js']
          : [...prof, '--import', 'tsx', '--conditions=development', 'gateway/src/main.ts'];
    const child = spawnChild(entry, {
      PORT: String(port),
      APP_STORE_URL: `http://${HOST}:${upstreamPort}`,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      // Production refuses to start without it (docs/decisions/013-operations-port.md).
      PUBLIC_BASE_URL: `http://${HOST}:${port}`,
    });
    await waitFor(`http://${HOST}:${port}/healthz`, child, 'gateway', { attempts: 100 });
    return { port, pid: child.pid };
  }

  async function startNginx(upstreamPort, extraHeaders) {
    const bin = findNginx();
    if (bin === null) return null;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
    tempDirs.push(dir);
    const port = await freePort();
    writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(dir, port, upstreamPort, extraHeaders));
    const child = spawnChild(['-p', dir, '-c', path.join(dir, 'nginx.conf')], {}, bin);
    await waitFor(`http://${HOST}:${port}/api/v1/apps`, child, 'nginx', { attempts: 100 });
    const version = spawnSync(bin, ['-v'], { encoding: 'utf8' }).stderr.trim().replace('nginx version: ', '');
    return { port, pid: child.pid, version, dir };
  }

  /** Runs every target of a section `rounds` times, alternating; returns the runs. */
  async function measure(section, upstreamPid, targets) {
    const runs = [];
    for (let round = 1; round <= rounds; round++) {
      for (const t of targets) {
        const url = `http://${HOST}:${t.port}/api/v1/apps`;
        await autocannon({ url, connections, duration: warmup });
        const cpu = t.tree ? treeCpuMs : cpuMs;
        const up0 = cpuMs(upstreamPid);
        const px0 = t.pid ? cpu(t.pid) : null;
        const self0 = process.cpuUsage();
        const r = await autocannon({ url, connections, duration });
        const self = process.cpuUsage(self0);
        const n = r.requests.total || 1;
        const up1 = cpuMs(upstreamPid);
        const px1 = t.pid ? cpu(t.pid) : null;
        const run = {
          section,
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
          loadavg: +os.loadavg()[0].toFixed(2),
        };
        runs.push(run);
        console.log(
          `round ${round}  ${t.name.padEnd(12)} ${String(run.rps).padStart(7)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms` +
            `  cpu µs/req upstream ${run.cpuUsPerReq.upstream ?? '-'} proxy ${run.cpuUsPerReq.proxy ?? '-'} autocannon ${run.cpuUsPerReq.loadGenerator}` +
            `  load ${run.loadavg}` +
            (run.non2xx || run.errors ? `  non2xx ${run.non2xx} errors ${run.errors}` : ''),
        );
      }
    }
    return runs;
  }

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  /** Mean per target; `ratio` against the target named `base`. */
  function summarise(targets, runs, base) {
    const summary = targets.map((t) => {
      const rs = runs.filter((r) => r.target === t.name);
      return {
        target: t.name,
        rps: Math.round(mean(rs.map((r) => r.rps))),
        rpsRange: [Math.min(...rs.map((r) => r.rps)), Math.max(...rs.map((r) => r.rps))],
        p50: +mean(rs.map((r) => r.p50)).toFixed(2),
        p99: +mean(rs.map((r) => r.p99)).toFixed(2),
        proxyCpuUsPerReq: t.pid ? +mean(rs.map((r) => r.cpuUsPerReq.proxy ?? 0)).toFixed(1) : null,
        proxyCpuRange: t.pid ? [Math.min(...rs.map((r) => r.cpuUsPerReq.proxy ?? 0)), Math.max(...rs.map((r) => r.cpuUsPerReq.proxy ?? 0))] : null,
        failures: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
      };
    });
    const baseRps = summary.find((s) => s.target === base).rps;
    for (const s of summary) s.ratio = +(s.rps / baseRps).toFixed(3);
    console.log(`\n| target | req/s (mean) | req/s per round | p50 ms | p99 ms | proxy CPU µs/req | ratio to ${base} |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const s of summary) {
      console.log(
        `| ${s.target} | ${s.rps} | ${s.rpsRange.join('–')} | ${s.p50} | ${s.p99} | ${s.proxyCpuUsPerReq ?? '-'}${s.proxyCpuRange ? ` (${s.proxyCpuRange.join('–')})` : ''} | ${s.ratio} |`,
      );
    }
    return summary;
  }

  try {
    const report = { date: new Date().toISOString(), load: { connections, warmup, duration, rounds, gateway: gatewayBuild }, runs: [] };
    const verdicts = [];
    console.log(`load: ${connections} connections, ${warmup} s warm-up + ${duration} s, ${rounds} rounds; gateway from ${gatewayBuild}`);

    if (sections.includes('stub')) {
      // A bare node:http upstream: the proxies' own cost decides. Gateway and nginx side by side.
      const upstreamPort = await freePort();
      const upstream = spawnChild([fileURLToPath(import.meta.url), '--stub', String(upstreamPort)]);
      await waitFor(`http://${HOST}:${upstreamPort}/healthz`, upstream, 'upstream stub', { attempts: 100 });
      const gw = await startGateway(upstreamPort);
      const targets = [
        { name: 'direct', port: upstreamPort, pid: null },
        { name: 'gateway', port: gw.port, pid: gw.pid },
      ];
      if (baselineMain !== null) {
        const before = await startGateway(upstreamPort, baselineMain);
        targets.push({ name: `gateway@${baseline}`, port: before.port, pid: before.pid });
      }
      // The headers the gateway adds to this answer (security headers): nginx+headers adds
      // the same ones, so both proxies send the client the same answer.
      const direct = await fetch(`http://${HOST}:${upstreamPort}/api/v1/apps`);
      await direct.arrayBuffer();
      const viaGateway = await fetch(`http://${HOST}:${gw.port}/api/v1/apps`);
      await viaGateway.arrayBuffer();
      const skip = new Set(['x-request-id', 'connection', 'keep-alive', 'date']);
      const added = [...viaGateway.headers].filter(([name]) => !direct.headers.has(name) && !skip.has(name));
      const nginx = await startNginx(upstreamPort);
      const nginxSame = nginx ? await startNginx(upstreamPort, added) : null;
      if (nginx) {
        targets.push({ name: 'nginx', port: nginx.port, pid: nginx.pid, tree: true });
        targets.push({ name: 'nginx+headers', port: nginxSame.port, pid: nginxSame.pid, tree: true });
      }
      if (compare) {
        for (const kind of ['http-agent', 'hpm-bare', 'hpm-express']) {
          const port = await freePort();
          const child = spawnChild([fileURLToPath(import.meta.url), '--ref', kind, String(port), String(upstreamPort)]);
          await waitFor(`http://${HOST}:${port}/api/v1/apps`, child, kind, { attempts: 100 });
          targets.push({ name: kind, port, pid: child.pid });
        }
      }
      const sample = await fetch(`http://${HOST}:${gw.port}/api/v1/apps`);
      const bodyBytes = Number(sample.headers.get('content-length'));
      if ((await sample.json()).length !== 20) throw new Error('gateway did not relay the 20-item answer');
      console.log(`\n== bare node:http upstream (${bodyBytes}-byte JSON): direct, gateway${nginx ? `, nginx (${nginx.version}, 1 worker, keep-alive upstream)` : ''}`);
      if (!nginx) console.log('note: nginx is not installed (apt-get install nginx, or NGINX_BIN=...): the nginx comparison is skipped');
      const runs = await measure('stub', upstream.pid, targets);
      report.runs.push(...runs);
      report.stubSummary = summarise(targets, runs, 'direct');
      report.bodyBytes = bodyBytes;
      const g = report.stubSummary.find((s) => s.target === 'gateway');
      verdicts.push({ what: `gateway CPU per proxied request ${g.proxyCpuUsPerReq} µs (target ≤ ${CPU_TARGET_US})`, ok: g.proxyCpuUsPerReq <= CPU_TARGET_US && g.failures === 0 });
      if (nginx) {
        // nginx: a bare proxy (request id, X-Forwarded-*); nginx+headers: the same answer as
        // the gateway's (also its security headers). The target is judged like for like.
        for (const name of ['nginx', 'nginx+headers']) {
          const n = report.stubSummary.find((s) => s.target === name);
          const ratio = +(g.rps / n.rps).toFixed(3);
          const perRound = Array.from({ length: rounds }, (_, i) => {
            const gr = runs.find((r) => r.round === i + 1 && r.target === 'gateway');
            const nr = runs.find((r) => r.round === i + 1 && r.target === name);
            return +(gr.rps / nr.rps).toFixed(2);
          });
          report[name === 'nginx' ? 'gatewayToNginx' : 'gatewayToNginxSameHeaders'] = ratio;
          console.log(`gateway/${name} = ${ratio} (per round ${perRound.join(', ')}; target ≥ ${THRESHOLD}); ${name} CPU ${n.proxyCpuUsPerReq} µs/req, gateway CPU ${g.proxyCpuUsPerReq} µs/req (${(g.proxyCpuUsPerReq / n.proxyCpuUsPerReq).toFixed(2)}×)`);
          verdicts.push({ what: `gateway/${name} ${ratio} (target ≥ ${THRESHOLD})`, ok: ratio >= THRESHOLD, informative: name === 'nginx' });
        }
        report.nginx = nginx.version;
        report.nginxAddedHeaders = added.map(([name]) => name);
      } else {
        report.nginx = null;
      }
    }

    if (sections.includes('service')) {
      // The real service stack upstream (what "calling the service directly" means).
      const upstreamPort = await freePort();
      const upstream = spawnChild(['--import', 'tsx', '--conditions=development', fileURLToPath(import.meta.url), '--service', String(upstreamPort)]);
      await waitFor(`http://${HOST}:${upstreamPort}/healthz`, upstream, 'upstream service', { attempts: 100 });
      const gw = await startGateway(upstreamPort);
      const targets = [
        { name: 'direct', port: upstreamPort, pid: null },
        { name: 'gateway', port: gw.port, pid: gw.pid },
      ];
      if (baselineMain !== null) {
        const before = await startGateway(upstreamPort, baselineMain);
        targets.push({ name: `gateway@${baseline}`, port: before.port, pid: before.pid });
      }
      console.log('\n== real service stack upstream (the kit): direct vs gateway');
      const runs = await measure('service', upstream.pid, targets);
      report.runs.push(...runs);
      // `summary` / `ratio`: the real-stack figures (section 2).
      report.summary = summarise(targets, runs, 'direct');
      const g = report.summary[1];
      report.ratio = g.ratio;
      console.log(`gateway/direct = ${g.ratio} (threshold ${THRESHOLD})${g.failures ? `, ${g.failures} failed requests` : ''}`);
      verdicts.push({ what: `gateway/direct (real service) ${g.ratio} (target ≥ ${THRESHOLD})`, ok: g.ratio >= THRESHOLD && g.failures === 0 });
    }

    const machine = {
      nproc: os.availableParallelism?.() ?? os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
    };
    report.machine = machine;
    report.verdicts = verdicts;
    report.threshold = THRESHOLD;
    console.log(`\nmachine: ${machine.nproc} CPUs (${machine.cpu}), node ${machine.node}, load average ${machine.loadavgAtEnd.join(' ')}`);
    for (const v of verdicts) console.log(`${v.ok ? 'met' : 'MISSED'}: ${v.what}${v.informative ? ' (shown, not judged: nginx sends fewer headers)' : ''}`);

    const stamp = new Date().toISOString().slice(0, 16).replace(':', '');
    const out = path.join(ROOT, 'bench', 'results', `gateway-${stamp}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results: ${path.relative(ROOT, out)}`);
    process.exitCode = verdicts.every((v) => v.ok || v.informative) ? 0 : 1;
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
