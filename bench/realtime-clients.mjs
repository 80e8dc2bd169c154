// Load generator for bench/realtime.mjs (forked with IPC): opens WebSocket clients, and
// for every bench message records the latency from the send time written into its content
// (`bench:<mode>:<seq>:<epoch ms>`) to its arrival here. Reports on request.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const { WebSocket } = createRequire(new URL('../services/realtime/package.json', import.meta.url))(
  'ws',
);
const nowMs = () => performance.timeOrigin + performance.now();

let sockets = [];
let latencies = {}; // `${mode}:${seq}` -> number[]
let counts = {}; // seq -> deliveries
let firstAt = Infinity;
let lastAt = 0;
let delivered = 0;
let closedByServer = 0;

function onMessage(data) {
  const at = nowMs();
  const text = data.toString();
  const i = text.indexOf('bench:');
  if (i < 0) return;
  const [, mode, seq, sent] = text.slice(i, text.indexOf('"', i)).split(':');
  (latencies[`${mode}:${seq}`] ??= []).push(at - Number(sent));
  counts[seq] = (counts[seq] ?? 0) + 1;
  delivered++;
  if (at < firstAt) firstAt = at;
  if (at > lastAt) lastAt = at;
}

function open(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('message', onMessage);
    ws.once('open', () => {
      sockets.push(ws);
      resolve(true);
    });
    ws.once('error', () => resolve(false));
    ws.once('close', (code) => {
      if (code !== 1000 && code !== 1005) closedByServer++;
    });
  });
}

async function connect({ urls, count, concurrency = 100 }) {
  let ok = 0;
  let failed = 0;
  let next = 0;
  async function worker() {
    while (next < count) {
      const url = urls[next % urls.length];
      next++;
      if (await open(url)) ok++;
      else failed++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ok, failed };
}

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    process.send({ type: 'connected', ...(await connect(msg)) });
  } else if (msg.cmd === 'report') {
    process.send({
      type: 'report',
      latencies,
      counts,
      firstAt,
      lastAt,
      delivered,
      closedByServer,
      open: sockets.filter((s) => s.readyState === 1).length,
    });
    latencies = {};
    counts = {};
    firstAt = Infinity;
    lastAt = 0;
    delivered = 0;
  } else if (msg.cmd === 'close') {
    for (const ws of sockets) ws.terminate();
    sockets = [];
    closedByServer = 0;
    process.send({ type: 'closed' });
  } else if (msg.cmd === 'exit') {
    process.exit(0);
  }
});
process.send({ type: 'ready' });
