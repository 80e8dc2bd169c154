// Realtime benchmark (bench/README.md "Chat and realtime"). Run from the repository root
// after `pnpm build`, under the machine-wide benchmark lock:
//   flock /tmp/bench.lock node bench/realtime.mjs [--clients 10000] [--generators 4]
// Starts the built chat and realtime processes (node dist/main.js) on a fresh PostgreSQL
// schema and a private Redis prefix, opens the WebSocket clients from separate generator
// processes, and measures:
//   1. memory per connection of one realtime process (RSS delta / clients);
//   2. latency from "message sent" to "arrived at the client", for every client, of chat
//      messages POSTed to chat (HTTP → PostgreSQL → Redis stream → realtime → sockets) and
//      of events published straight to Redis (the kit's publisher); target p99 < 250 ms;
//   3. delivery rate (messages handed to clients per second) for a burst of events with one
//      realtime process holding all clients, then with two processes sharing them.
// Clients connect directly to realtime, not through the gateway: the gateway tunnels an
// upgraded socket byte for byte, so through it every client would cost two more sockets on
// this 2-CPU machine (one in, one out) and the generators would compete with it for CPU.
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { cpuMs as cpuMsOf } from './lib/process-cpu.mjs';
import { sleep } from './lib/processes.mjs';
import {
  arg,
  benchPublisher,
  log,
  metric,
  nowMs,
  pct,
  rssKb,
  startGenerators,
  startService as startBuilt,
  summary,
} from './lib/realtime.mjs';

const root = new URL('..', import.meta.url).pathname;
const CLIENTS = arg('clients', 10_000);
const GENERATORS = arg('generators', 4);
const LATENCY_EVENTS = arg('events', 20); // per mode
const BURST = arg('burst', 100);
const GAP_MS = arg('gap', 1000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_test';
const prefix = `bench:rt:${randomBytes(4).toString('hex')}:`;

const rtRequire = createRequire(`${root}services/realtime/package.json`);
const { Redis } = rtRequire('ioredis');
const { createTestDatabase } = await import(`${root}packages/service-kit/dist/testing/index.js`);

// ---- limits of this machine ------------------------------------------------------------
const nofile = Number(execSync('ulimit -n', { shell: '/bin/bash' }).toString().trim());
const [portLow, portHigh] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
  .trim()
  .split(/\s+/)
  .map(Number);
log(`ulimit -n ${nofile}; ephemeral ports ${portLow}-${portHigh} (${portHigh - portLow + 1})`);
if (nofile < CLIENTS + 500)
  throw new Error(`ulimit -n ${nofile} is too low for ${CLIENTS} clients in one realtime process`);
if (portHigh - portLow + 1 < CLIENTS + 1000) throw new Error('ephemeral port range too small');

// ---- processes ---------------------------------------------------------------------------
const children = [];
const startService = (name, env) =>
  startBuilt(name, { redisUrl: REDIS_URL, prefix, env, children });

// ---- generators ----------------------------------------------------------------------------
const { generators, ask, askAll } = await startGenerators(
  `${root}bench/realtime-clients.mjs`,
  GENERATORS,
  children,
);

async function connectClients(urls) {
  const started = Date.now();
  const per = Math.ceil(CLIENTS / GENERATORS);
  const results = await Promise.all(
    generators.map((g, i) =>
      ask(
        g,
        {
          cmd: 'connect',
          urls: urls.map((u) => u.replace('http', 'ws') + '/api/ws'),
          count: Math.min(per, CLIENTS - i * per),
        },
        'connected',
      ),
    ),
  );
  const ok = results.reduce((s, r) => s + r.ok, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  log(
    `connected ${ok} clients (${failed} failed) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return ok;
}

async function collect() {
  const reports = await askAll({ cmd: 'report' }, 'report');
  const latencies = {};
  const counts = {};
  let delivered = 0;
  let firstAt = Infinity;
  let lastAt = 0;
  let closedByServer = 0;
  let open = 0;
  for (const r of reports) {
    for (const [key, xs] of Object.entries(r.latencies)) (latencies[key] ??= []).push(...xs);
    for (const [seq, n] of Object.entries(r.counts)) counts[seq] = (counts[seq] ?? 0) + n;
    delivered += r.delivered;
    firstAt = Math.min(firstAt, r.firstAt);
    lastAt = Math.max(lastAt, r.lastAt);
    closedByServer += r.closedByServer;
    open += r.open;
  }
  return { latencies, counts, delivered, firstAt, lastAt, closedByServer, open };
}

// ---- run -----------------------------------------------------------------------------------
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadavgAtStart: os.loadavg().map((x) => Math.round(x * 10) / 10),
  clients: CLIENTS,
  generators: GENERATORS,
};
const pub = new Redis(REDIS_URL);
// Through the kit's publisher, as chat and sites publish: the events stream.
const { createEventPublisher } = await import(`${root}packages/service-kit/dist/redis/event-bus.js`);
const events = createEventPublisher(pub, prefix);
const { publish: publishBench, nextSeq } = benchPublisher(events);

const db = await createTestDatabase(`${root}services/chat/prisma/migrations`);
try {
  const chat = await startService('chat', { DATABASE_URL, CHAT_DATABASE_URL: db.url });
  const a = await startService('realtime', { CHAT_URL: chat.url });
  await sleep(1500);
  const rssBefore = rssKb(a.child.pid);

  // 1. memory
  const connected = await connectClients([a.url]);
  await sleep(3000);
  const rssAfter = rssKb(a.child.pid);
  report.memory = {
    rssBeforeMb: Math.round(rssBefore / 1024),
    rssAfterMb: Math.round(rssAfter / 1024),
    clients: connected,
    kbPerConnection: Math.round(((rssAfter - rssBefore) / connected) * 10) / 10,
  };
  log('memory', report.memory);

  // 2. latency of single messages (GAP_MS apart, so each is measured on its own, as chat
  //    traffic is: 10 posts/min per IP): POST through chat, and direct publish
  await collect();
  const cpuBefore = cpuMsOf(a.child.pid);
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const s = nextSeq();
    const content = `bench:post:${s}:${nowMs()}`;
    // One client address per post (the gateway would forward it), so 10/min per IP holds.
    const res = await fetch(`${chat.url}/api/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `10.77.${i >> 8}.${i & 255}`,
      },
      body: JSON.stringify({ content }),
    });
    if (res.status !== 201) throw new Error(`POST /api/messages answered ${res.status}`);
    await sleep(GAP_MS);
    await publishBench('publish');
    await sleep(GAP_MS);
  }
  const cpuMs = cpuMsOf(a.child.pid) - cpuBefore;
  await sleep(1500);
  const lat = await collect();
  const expected = LATENCY_EVENTS * 2 * connected;
  // Over all deliveries of a mode, and per message (the spread shows neighbours' load).
  const byMode = (mode) => {
    const keys = Object.keys(lat.latencies).filter((k) => k.startsWith(`${mode}:`));
    const perMessageP99 = keys.map((k) => summary(lat.latencies[k]).p99).sort((x, y) => x - y);
    return {
      ...summary(keys.flatMap((k) => lat.latencies[k])),
      perMessageP99: {
        min: perMessageP99[0],
        median: pct(perMessageP99, 50),
        max: perMessageP99[perMessageP99.length - 1],
        under250: `${perMessageP99.filter((x) => x < 250).length}/${perMessageP99.length}`,
      },
    };
  };
  report.latency = {
    post: byMode('post'),
    publish: byMode('publish'),
    deliveredOfExpected: `${lat.delivered}/${expected}`,
    serverDisconnects: lat.closedByServer,
    realtimeCpuMicrosPerDelivery:
      Math.round(((cpuMs * 1000) / Math.max(1, lat.delivered)) * 10) / 10,
    broadcastSecondsSum: await metric(a.opsUrl, 'realtime_broadcast_duration_seconds_sum'),
  };
  log('latency ms', report.latency);

  // 3. burst delivery rate: one process, then two
  async function burst(label, urls) {
    await collect();
    const t0 = nowMs();
    for (let i = 0; i < BURST; i++) await publishBench('burst');
    const want = BURST * connectedNow;
    let total = 0;
    let last = t0;
    // Collect until everything arrived, or nothing new came for 3 s.
    for (let idle = 0; total < want && idle < 12;) {
      await sleep(250);
      const r = await collect();
      total += r.delivered;
      if (r.delivered) {
        last = Math.max(last, r.lastAt);
        idle = 0;
      } else idle++;
    }
    const seconds = (last - t0) / 1000;
    const out = {
      processes: urls.length,
      clients: connectedNow,
      events: BURST,
      delivered: `${total}/${want}`,
      seconds: Math.round(seconds * 100) / 100,
      deliveriesPerSecond: Math.round(total / seconds),
    };
    log(label, out);
    return out;
  }
  let connectedNow = connected;
  report.burstOne = await burst('burst, 1 process', [a.url]);

  await askAll({ cmd: 'close' }, 'closed');
  await sleep(1000);
  const b = await startService('realtime', { CHAT_URL: chat.url });
  connectedNow = await connectClients([a.url, b.url]);
  await sleep(2000);
  report.burstTwo = await burst('burst, 2 processes', [a.url, b.url]);
  report.slowDisconnects =
    (await metric(a.opsUrl, 'realtime_server_disconnects_total', 'reason="slow"')) +
    (await metric(b.opsUrl, 'realtime_server_disconnects_total', 'reason="slow"'));

  report.loadavgAtEnd = os.loadavg().map((x) => Math.round(x * 10) / 10);
  mkdirSync(`${root}bench/results`, { recursive: true });
  const file = `${root}bench/results/realtime-${report.date.slice(0, 19).replace(/:/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2));
  log(`report written to ${file}`);
  const pass =
    report.latency.post.p99 < 250 &&
    report.latency.publish.p99 < 250 &&
    report.memory.kbPerConnection < 30;
  log(pass ? 'targets met' : 'TARGETS MISSED');
  process.exitCode = pass ? 0 : 1;
} finally {
  await askAll({ cmd: 'close' }, 'closed').catch(() => undefined);
  for (const c of children) c.kill('SIGTERM');
  pub.disconnect();
  await sleep(500);
  await db.drop();
}
