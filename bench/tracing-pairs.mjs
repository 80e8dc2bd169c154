#!/usr/bin/env node
// Where the app-store's share of tracing's cost goes (README.md, "Tracing"): the BUILT
// app-store alone, traced (100 % unless --env says otherwise), beside an untraced twin, both
// loaded at the same time by load generators of their own, in fresh pairs. Each pair prints
// the throughput ratio (traced / twin) and both processes' CPU µs per request; the medians
// close the run. Loading the app-store directly (every request carrying a sampled
// `traceparent`, as the gateway's would) leaves out the gateway, whose cost moves with the
// app-store's on two cores and blurs small differences in bench/tracing.mjs.
// To compare two builds of the kit, run this once per build, alternating (A B A B): the
// machine's speed drifts between runs more than within one.
// Usage, from the repository root, after `pnpm build`:
//   node bench/tracing-pairs.mjs [--pairs 6] [--warmup 12] [--duration 5] [--rate N] [--env K=V]... [--twin-env K=V]...
//                                [--cpu-prof dir] [--gc] [--counters]
// --rate N holds each process at N req/s (CPU µs per request then compare like with like);
// --env sets the traced process's environment (OTEL_TRACES_SAMPLER=always_off measures what
// tracing costs a request that is not sampled); --cpu-prof writes both processes' profiles
// (dir/traced, dir/twin; summarise with bench/lib/cpuprofile-summary.mjs); --gc starts both
// with --trace-gc-nvp and prints, for the measured seconds, each one's scavenges, what
// survived them on average (KB) and their pauses per request (µs): what found V8's
// allocation-site pretenuring promoting most of each traced request (README.md, "Tracing");
// --counters prints, per request, both processes' user and system CPU, minor page faults and
// their main threads' context switches (waited: it blocked; preempted: the scheduler took the
// core), which tell a process that does more from one that is interrupted more.
import { fork, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenAcknowledging } from './lib/ack-receiver.mjs';
import { seedApps } from './lib/app-store-seed.mjs';
import { appStoreEnv, callerTraceparents } from './lib/app-store-tracing.mjs';
import { runLoadChild } from './lib/load-child.mjs';
import { envArgs } from './lib/env-args.mjs';
import { cpuMs, processCounters } from './lib/process-cpu.mjs';
import { HOST, freePort, waitFor } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const SCHEMA = 'app_store_tracing_pairs';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : argv[i + 1];
};

/** The receiver child: answers every export with 200 (this compares; it counts nothing). */
function runReceiver(port) {
  listenAcknowledging(port).then(() => process.send('ready'));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const pairs = Number(opt('pairs', 6));
  const duration = Number(opt('duration', 5));
  // Steady state: fresh processes are still being optimised seconds in (bench/tracing.mjs).
  const warmup = Number(opt('warmup', 12));
  const rate = opt('rate') === undefined ? undefined : Number(opt('rate'));
  const profDir = opt('cpu-prof');
  const gc = argv.includes('--gc');
  const counters = argv.includes('--counters');
  const sampledShare = Number(opt('sampled-share', 1));
  if (!(sampledShare >= 0 && sampledShare <= 1)) throw new Error('--sampled-share takes a number from 0 to 1');
  const tracedEnv = envArgs('env');
  const twinEnv = envArgs('twin-env');
  const children = [];
  process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
  const forkReady = async (args) => {
    const child = fork(SELF, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.push(child);
    await new Promise((resolve) => child.once('message', resolve));
    return child;
  };

  const pg = new (requireRoot('pg').Client)({ connectionString: DATABASE_URL });
  await pg.connect();
  await seedApps(pg, 5000, SCHEMA);
  const receiverPort = await freePort();
  await forkReady(['--receiver', String(receiverPort)]);
  const loaders = [await forkReady(['--load']), await forkReady(['--load'])];

  const start = async (env, tag) => {
    const port = await freePort();
    const flags = profDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profDir, tag)}`] : [];
    if (gc) flags.push('--trace-gc-nvp');
    const child = spawn(process.execPath, [...flags, 'dist/main.js'], {
      cwd: path.join(ROOT, 'services', 'app-store'),
      env: {
        ...appStoreEnv({ databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, schema: SCHEMA, redisPrefix: 'bench:tracing-pairs:' }),
        ...env,
        PORT: String(port),
      },
      // --gc: stdout (the GC lines, and the access log read past) comes here.
      stdio: ['ignore', gc ? 'pipe' : 'ignore', 'inherit'],
    });
    const started = Date.now();
    const scavenges = [];
    if (gc) {
      let rest = '';
      child.stdout.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop();
        for (const line of lines) {
          if (!line.includes(' gc=s ')) continue;
          const field = (name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
          // "<ms since start> ms: pause=…": kept with the time it happened at.
          scavenges.push({ at: started + Number(/(\d+) ms: /.exec(line)?.[1] ?? 0), pause: field('pause'), survived: field('new_space_survived') });
        }
      });
    }
    children.push(child);
    await waitFor(`http://${HOST}:${port}/healthz`, child, `app-store (${tag})`);
    return { child, url: `http://${HOST}:${port}/api/v1/apps`, scavenges };
  };
  const traced = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://${HOST}:${receiverPort}`,
    OTEL_TRACES_SAMPLER: 'always_on',
    ...tracedEnv,
  };
  // A new trace per request would need a new header per request; a cycle of 100 callers'
  // traces costs the app-store the same. --sampled-share s: that share of them is sampled
  // (flags 01), the rest not (00), as behind a gateway sampling s of new traces.
  const requests = callerTraceparents(sampledShare).map((traceparent) => ({ method: 'GET', headers: { traceparent } }));
  const load = (stacks, seconds) =>
    Promise.all(
      stacks.map(
        (stack, i) =>
          new Promise((resolve) => {
            loaders[i].once('message', resolve);
            loaders[i].send({
              url: stack.url,
              connections: rate === undefined ? 50 : 20,
              duration: seconds,
              requests,
              ...(rate === undefined ? {} : { overallRate: rate }),
            });
          }),
      ),
    );

  const ratios = [];
  const extra = [];
  console.log(`app-store traced ${JSON.stringify(tracedEnv)}, ${sampledShare * 100} % of callers sampled, beside an untraced twin: ${pairs} pairs of ${warmup} s warm-up + ${duration} s, ${rate === undefined ? '50 connections each (saturated)' : `${rate} req/s each`}`);
  for (let p = 1; p <= pairs; p++) {
    // Started in turns: the first process started is not always the traced one.
    const made = {};
    for (const tag of p % 2 ? ['traced', 'twin'] : ['twin', 'traced'])
      made[tag] = await start(tag === 'traced' ? traced : twinEnv, tag);
    const stacks = [made.traced, made.twin];
    await load(stacks, warmup);
    const before = stacks.map((s) => cpuMs(s.child.pid));
    const countersBefore = counters && stacks.map((s) => processCounters(s.child.pid));
    const window = [Date.now()];
    const results = await load(stacks, duration);
    window.push(Date.now());
    const countersAfter = counters && stacks.map((s) => processCounters(s.child.pid));
    const used = stacks.map((s, i) => ((cpuMs(s.child.pid) - before[i]) * 1000) / results[i].total);
    const ratio = results[0].total / results[1].total;
    ratios.push(ratio);
    extra.push(used[0] - used[1]);
    console.log(
      `pair ${p}: traced/twin ${ratio.toFixed(3)}  CPU µs/req traced ${used[0].toFixed(1)} twin ${used[1].toFixed(1)} (+${(used[0] - used[1]).toFixed(1)})` +
        `  requests ${results[0].total}/${results[1].total}, failures ${results[0].failures}/${results[1].failures}`,
    );
    if (counters) {
      const text = stacks.map((_, i) => {
        const per = (key, scale = 1) =>
          (((countersAfter[i][key] - countersBefore[i][key]) * scale) / results[i].total).toFixed(key.endsWith('Ms') ? 1 : 3);
        return `${i === 0 ? 'traced' : 'twin'} user ${per('userMs', 1000)} sys ${per('sysMs', 1000)} µs, faults ${per('minorFaults')}, switches ${per('voluntarySwitches')} waited ${per('involuntarySwitches')} preempted`;
      });
      console.log(`        per request: ${text.join('; ')}`);
    }
    if (gc) {
      const text = stacks.map((stack, i) => {
        const seen = stack.scavenges.filter((x) => x.at >= window[0] && x.at <= window[1]);
        const survived = seen.reduce((a, x) => a + x.survived, 0) / Math.max(1, seen.length) / 1024;
        const pause = (seen.reduce((a, x) => a + x.pause, 0) * 1000) / results[i].total;
        return `${i === 0 ? 'traced' : 'twin'} ${seen.length} scavenges, ${survived.toFixed(0)} KB survived each, ${pause.toFixed(1)} µs/req paused`;
      });
      console.log(`        gc: ${text.join('; ')}`);
    }
    if (results.some((r) => r.failures > 0)) throw new Error('requests failed: the figures would measure error paths');
    for (const s of stacks) {
      s.child.kill('SIGTERM');
      await new Promise((resolve) => s.child.once('exit', resolve));
    }
  }
  console.log(`median: traced/twin ${median(ratios).toFixed(3)}, +${median(extra).toFixed(1)} µs of CPU per request`);
  await pg.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await pg.end();
  process.exit(0);
}

if (argv[0] === '--receiver') runReceiver(Number(argv[1]));
else if (argv[0] === '--load') runLoadChild();
else await main();
