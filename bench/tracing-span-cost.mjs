#!/usr/bin/env node
// What a span itself costs, apart from the service around it (README.md, "Tracing"): the
// kit's server-span helpers called in a loop, as the gateway calls them per request
// (startServerSpan, traceparentOf, endServerSpan). Three settings, each in a fresh process: tracing off,
// on with nothing sampled (always_off), on with everything sampled (always_on: each span
// recorded, encoded and exported over OTLP/HTTP JSON to a receiver in another process, whose
// CPU is not counted). Prints the CPU µs per iteration of the measuring process, per round.
// Measured in a tight loop, the code is optimised and its data in cache: this is the floor
// of what tracing adds to a request, to set against what the services spend more per
// request when traced (bench/tracing.mjs), to tell the spans' own code from its effects on
// the processes around it.
// Usage, from the repository root, after `pnpm build`:
//   node bench/tracing-span-cost.mjs [--iterations 200000] [--rounds 5] [--cpu-prof dir]
// --cpu-prof writes each setting's V8 CPU profile (dir/<setting>; bench/lib/cpuprofile-summary.mjs).
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listenAcknowledging } from './lib/ack-receiver.mjs';
import { HOST } from './lib/processes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const KIT = pathToFileURL(path.join(ROOT, 'packages', 'service-kit', 'dist', 'tracing.js')).href;
const SETTINGS = ['off', 'nothing sampled', 'all sampled'];

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(argv[i + 1]);
};

/** The receiver child: answers every export with 200, and tells its port. */
function runReceiver() {
  listenAcknowledging().then((server) => process.send(server.address().port));
}

/** One setting's loop; sends [µs of CPU per iteration] per round to the parent. */
async function runLoop(setting, iterations, rounds, receiverPort) {
  if (setting !== 'off') {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://${HOST}:${receiverPort}`;
    process.env.OTEL_TRACES_SAMPLER = setting === 'all sampled' ? 'always_on' : 'always_off';
    // The loop ends spans faster than one export at a time ships them: keep them all, so that
    // every span is encoded (a full queue drops spans before encoding them).
    process.env.OTEL_BSP_MAX_QUEUE_SIZE = String(iterations * 2);
  }
  const tracing = await import(KIT);
  tracing.startTracing('span-cost');
  const headers = { host: 'bench', 'user-agent': 'autocannon' };
  const one = () => {
    const server = tracing.startServerSpan('GET', '/api/v1/apps', headers, '/api/v1/apps');
    if (server === undefined) return;
    tracing.traceparentOf(server);
    tracing.endServerSpan(server, 200);
  };
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) {
      one();
      // Let the exporter's timers and sockets run, as between a server's requests.
      if ((i & 1023) === 1023) await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(before);
    results.push((used.user + used.system) / iterations);
  }
  await tracing.stopTracing();
  return results;
}

async function main() {
  const iterations = arg('iterations', 200_000);
  const rounds = arg('rounds', 5);
  const receiver = fork(SELF, ['--receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receiverPort = await new Promise((resolve) => receiver.once('message', resolve));
  const i = argv.indexOf('--cpu-prof');
  const profDir = i === -1 ? undefined : path.resolve(argv[i + 1]);
  console.log(`${iterations} iterations (a server span and its traceparent) per round, ${rounds} rounds, each setting in a fresh process`);
  const medians = {};
  try {
    for (const setting of SETTINGS) {
      const child = fork(SELF, ['--loop', setting, String(iterations), String(rounds), String(receiverPort)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        execArgv: profDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profDir, setting.replaceAll(' ', '-'))}`] : [],
      });
      const results = await new Promise((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => code !== 0 && reject(new Error(`${setting} exited with ${code}`)));
      });
      const sorted = [...results].sort((a, b) => a - b);
      medians[setting] = sorted[sorted.length >> 1];
      console.log(`${setting.padEnd(16)} ${results.map((r) => r.toFixed(2)).join(' ')} µs of CPU per iteration`);
    }
  } finally {
    receiver.kill();
  }
  console.log('\n| setting | CPU µs per iteration (median) | over off |');
  console.log('|---|---:|---:|');
  for (const setting of SETTINGS)
    console.log(`| ${setting} | ${medians[setting].toFixed(2)} | ${setting === 'off' ? '' : `+${(medians[setting] - medians.off).toFixed(2)}`} |`);
}

if (argv[0] === '--receiver') runReceiver();
else if (argv[0] === '--loop') {
  const [, setting, iterations, rounds, port] = argv;
  process.send(await runLoop(setting, Number(iterations), Number(rounds), Number(port)), () => process.exit(0));
} else await main();
