#!/usr/bin/env node
// What tracing costs the app-store in instructions, not seconds (README.md, "Tracing"): the
// BUILT app-store under valgrind's callgrind, instrumentation switched on only after a
// warm-up, then a fixed number of GET /api/v1/apps through --connections keep-alive connections; the
// instructions executed per request are what callgrind counted, divided by the requests.
// Unlike throughput on these shared 2-core VMs (rounds spread by ±10 %), a count repeats to
// a few per cent, so a change of a few µs shows in one run. What it cannot show: the garbage
// collector as it runs natively (valgrind serialises V8's helper threads) and the CPU's
// caches. The dumps stay in --out (callgrind_annotate them: V8's runtime, builtins and GC
// have symbols, JIT code does not).
// Settings, each run --rounds times in turn: off (no OTEL_EXPORTER_OTLP_ENDPOINT), and traced
// (parentbased_always_on, exporting to a receiver in this process) behind callers of which a
// share is sampled, one setting per --shares value (default 0,1: nothing and everything).
// Needs valgrind (Debian: apt-get install valgrind). Usage, from the repository root, after
// `pnpm build` (wrap in `flock /tmp/bench.lock`):
//   node bench/tracing-instructions.mjs [--requests 3000] [--warmup 3000] [--rounds 1]
//        [--shares 0,0.1,1] [--env K=V]... [--node-flag F]... [--connections 4] [--out dir] [--symbols]
// --env adds settings to every traced process; --node-flag a V8 or node flag to every
// process, off included (e.g. --node-flag=--minor-ms, as a deployment would set it). --symbols starts node with --perf-basic-prof
// and --interpreted-frames-native-stack and prints each dump's costliest functions, JIT code
// named from /tmp/perf-<pid>.map (a leading ~ interpreted, ^ baseline, + Maglev, * TurboFan).
// A dump's totals move by up to a tenth between runs (when the collector and the optimising
// compiler run falls differently): compare functions, or repeat rounds, not single totals.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenAcknowledging } from './lib/ack-receiver.mjs';
import { seedApps } from './lib/app-store-seed.mjs';
import { appStoreEnv, callerTraceparents } from './lib/app-store-tracing.mjs';
import { envArgs } from './lib/env-args.mjs';
import { HOST, freePort, waitFor } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const SCHEMA = 'app_store_tracing_instructions';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : argv[i + 1];
};

/** `count` GETs of `url` through `connections` keep-alive connections; throws on a non-200. */
async function load(url, count, traceparents, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  const one = (i) =>
    new Promise((resolve, reject) => {
      const headers = traceparents ? { traceparent: traceparents[i % traceparents.length] } : {};
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) await one(next++);
    }),
  );
  agent.destroy();
}

/**
 * A dump's costliest functions by their own instructions per request, JIT code named from
 * the process's perf map (the last name given to an address wins, as code moves).
 */
function costliest(file, perfMap, requests, top = 25) {
  const ranges = [];
  if (existsSync(perfMap))
    for (const line of readFileSync(perfMap, 'utf8').split('\n')) {
      const [start, size, ...name] = line.split(' ');
      if (name.length) ranges.push([parseInt(start, 16), parseInt(size, 16), name.join(' ')]);
    }
  const nameAt = (address) => {
    for (let i = ranges.length - 1; i >= 0; i--)
      if (address >= ranges[i][0] && address < ranges[i][0] + ranges[i][1]) return ranges[i][2];
    return undefined;
  };
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const byName = new Map();
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || line.includes('PROGRAM TOTALS')) continue;
    const where = m[2];
    const jit = /^\?\?\?:0x([0-9a-f]+)/.exec(where);
    const name = (jit && nameAt(parseInt(jit[1], 16))) || where.replace(/ \[\/.*$/, '').replace(/\(.*$/, '');
    byName.set(name, (byName.get(name) ?? 0) + Number(m[1].replaceAll(',', '')));
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ir]) => `  ${(ir / requests / 1000).toFixed(2).padStart(7)} k  ${name.slice(0, 140)}`)
    .join('\n');
}

/** The instructions (Ir) of a callgrind dump: its `totals:` (or `summary:`) line. */
function instructionsOf(file) {
  const text = readFileSync(file, 'utf8');
  const line = /^(?:totals|summary): (\d+)/m.exec(text);
  if (!line) throw new Error(`no totals in ${file}`);
  return Number(line[1]);
}

async function main() {
  const requests = Number(opt('requests', 3000));
  const warmup = Number(opt('warmup', 3000));
  const rounds = Number(opt('rounds', 1));
  const shares = String(opt('shares', '0,1')).split(',').map(Number);
  if (shares.some((s) => !(s >= 0 && s <= 1))) throw new Error('--shares takes numbers from 0 to 1');
  const out = path.resolve(opt('out', path.join(ROOT, 'bench', 'results', 'callgrind')));
  const env = envArgs('env');
  const symbols = argv.includes('--symbols');
  const connections = Number(opt('connections', 4));
  const nodeFlags = argv.flatMap((word, i) => (word === '--node-flag' ? [argv[i + 1]] : []));
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  mkdirSync(out, { recursive: true });

  const pg = new (requireRoot('pg').Client)({ connectionString: DATABASE_URL });
  await pg.connect();
  await seedApps(pg, 5000, SCHEMA);
  const receiver = await listenAcknowledging();
  const receiverUrl = `http://${HOST}:${receiver.address().port}`;

  const settings = [
    { name: 'off', env: {} },
    ...shares.map((share) => ({
      name: `traced, ${share * 100} % sampled`,
      share,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_TRACES_SAMPLER: 'parentbased_always_on', ...env },
    })),
  ];
  console.log(`app-store under callgrind: ${warmup} requests of warm-up, ${requests} counted, ${connections} connections; node flags ${JSON.stringify(nodeFlags)}; traced settings ${JSON.stringify(env)}`);
  const counts = Object.fromEntries(settings.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const setting of settings) {
      const port = await freePort();
      const tag = `${setting.name.replace(/[^a-z0-9]+/gi, '-')}-r${round}`;
      const child = spawn(
        'valgrind',
        [
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${out}/${tag}.%p`,
          process.execPath,
          // JIT code's names for the dump (/tmp/perf-<pid>.map; interpreted functions too).
          ...(symbols ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []),
          ...nodeFlags,
          'dist/main.js',
        ],
        {
          cwd: path.join(ROOT, 'services', 'app-store'),
          env: {
            ...appStoreEnv({ databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, schema: SCHEMA, redisPrefix: 'bench:tracing-instructions:' }),
            ...setting.env,
            PORT: String(port),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      const url = `http://${HOST}:${port}/api/v1/apps`;
      const traceparents = setting.share === undefined ? undefined : callerTraceparents(setting.share);
      try {
        await waitFor(`http://${HOST}:${port}/healthz`, child, setting.name, { attempts: 1800 });
        await load(url, warmup, traceparents, connections);
        execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
        await load(url, requests, traceparents, connections);
        execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      } finally {
        child.kill('SIGKILL');
        await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
      }
      // The dump asked for is `<tag>.<pid>.1`; the one at exit (killed: none) would be `.<pid>`.
      const dump = readdirSync(out).find((f) => f.startsWith(`${tag}.${child.pid}.`));
      if (!dump) throw new Error(`no callgrind dump for ${tag}`);
      const perRequest = instructionsOf(path.join(out, dump)) / requests;
      counts[setting.name].push(perRequest);
      console.log(`round ${round}  ${setting.name.padEnd(24)} ${(perRequest / 1000).toFixed(1)} k instructions per request  (${dump})`);
      if (symbols) console.log(costliest(path.join(out, dump), `/tmp/perf-${child.pid}.map`, requests));
    }
  }
  const offMean = counts.off.reduce((a, b) => a + b, 0) / counts.off.length;
  console.log('\n| setting | k instructions per request (rounds) | over off |');
  console.log('|---|---|---:|');
  for (const [name, list] of Object.entries(counts)) {
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    console.log(`| ${name} | ${list.map((x) => (x / 1000).toFixed(1)).join(', ')} | ${name === 'off' ? '' : `+${(((mean - offMean) / offMean) * 100).toFixed(1)} %`} |`);
  }
  await pg.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await pg.end();
  receiver.close();
}

await main();
