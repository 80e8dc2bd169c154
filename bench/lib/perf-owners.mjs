#!/usr/bin/env node
// Real CPU of a Node process by owner, from `perf script` output of a `perf record -g` of a
// process started with --perf-basic-prof-only-functions (so JIT frames carry JS names).
// Unlike a V8 .cpuprofile (wall time on the main thread: a syscall that wakes a peer and is
// preempted counts as long as it waits), perf samples only time on a CPU, kernel included.
// Each sample goes to the first frame from the leaf up that names an owner (a package, our
// code, a group of Node's modules); kernel samples are marked `kernel/` plus the JS owner
// that made the system call.
// Usage: perf script -i perf.data -F ip,sym,dso | node bench/lib/perf-owners.mjs
import { readFileSync } from 'node:fs';

const OWNERS = [
  [/undici/, 'undici (upstream client, llhttp wasm)'],
  [/gateway\/(dist|src)/, 'gateway code'],
  [/prom-client/, 'prom-client (metrics)'],
  [/node:_http/, 'node:http (server, ServerResponse)'],
  [/node:(net|internal\/stream|internal\/streams|events|internal\/timers|internal\/process|buffer)/, 'node streams/events/timers/nextTick'],
];

function owner(stack) {
  const kernel = stack[0].includes('[kernel') ? 'kernel/' : '';
  for (const frame of stack) for (const [re, name] of OWNERS) if (re.test(frame)) return kernel + name;
  for (const frame of stack) {
    if (/Scavenge|Heap::|MarkCompact|Sweeper|GCTracer/.test(frame)) return `${kernel}V8 garbage collector`;
    if (/uv__io_poll|uv_run|epoll/.test(frame)) return `${kernel}libuv event loop, native parsers`;
  }
  return `${kernel}other (V8, libc)`;
}

const text = readFileSync(0, 'utf8');
const counts = new Map();
let total = 0;
for (const block of text.split('\n\n')) {
  const stack = block.split('\n').map((l) => l.trim()).filter(Boolean);
  if (stack.length === 0) continue;
  total++;
  const o = owner(stack);
  counts.set(o, (counts.get(o) ?? 0) + 1);
}
console.log(`${total} samples (CPU time only, kernel included)`);
for (const [o, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${o}`);
