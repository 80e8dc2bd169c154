// Resume benchmark (bench/README.md "Realtime resume"). Run from the repository
// root after `pnpm build`, under the machine-wide benchmark lock:
//   flock /tmp/bench.lock node bench/realtime-resume.mjs [--clients 10000] [--generators 4]
//     [--rounds 2] [--events 20] [--gap 500] [--storm-gap 20] [--storm-live 10]
//     [--storm-spread 0] [--storm-cold 1] [--skip-rounds 1]
// Starts built realtime processes (node dist/main.js) on a private Redis prefix, opens the
// WebSocket clients from forked generator processes, and measures in one run:
//   1. rounds alternating WS_RESUME=false (the pub/sub relay, no ids: today's behaviour) and
//      WS_RESUME=true (the events stream, ids, resume): memory per connection (RSS delta /
//      clients; target < 30 KB) and delivery latency of `--events` events published
//      `--gap` ms apart through the kit's publisher (target: p99 "on" within 10 % of "off");
//   2. a reconnect storm: all clients on replica A, a second replica B running; A is
//      SIGKILLed, `--storm-gap` events are published, then every client reconnects to B at
//      once with its last id while `--storm-live` more events are published; time until the
//      last client received the last event of the gap (target < 10 s), and whether every
//      client received exactly the gap + live ids, in order, once.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { cpuMs } from './lib/process-cpu.mjs';
import { sleep } from './lib/processes.mjs';
import {
  arg,
  benchPublisher,
  log,
  metric,
  nowMs,
  r1,
  rssKb,
  startGenerators,
  startService,
  summary,
} from './lib/realtime.mjs';

const root = new URL('..', import.meta.url).pathname;
const CLIENTS = arg('clients', 10_000);
const GENERATORS = arg('generators', 4);
const ROUNDS = arg('rounds', 2);
const EVENTS = arg('events', 20);
const GAP_MS = arg('gap', 500);
const STORM_GAP = arg('storm-gap', 20);
const STORM_LIVE = arg('storm-live', 10);
const STORM_SPREAD_MS = arg('storm-spread', 0);
// 1: B starts only after the gap, so it holds none of it in memory: every replay reads Redis.
const STORM_COLD = arg('storm-cold', 0) === 1;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bench:rr:${randomBytes(4).toString('hex')}:`;

const rtRequire = createRequire(`${root}services/realtime/package.json`);
const { Redis } = rtRequire('ioredis');
const { createEventPublisher } = await import(`${root}packages/service-kit/dist/redis/event-bus.js`);

// ---- processes -----------------------------------------------------------------------------
const children = [];
const startRealtime = (resume) =>
  startService('realtime', {
    redisUrl: REDIS_URL,
    prefix,
    children,
    env: {
      LOG_LEVEL: 'error', // no chat here: the entrance reports' warnings would flood
      WS_RESUME: String(resume),
      CHAT_URL: 'http://127.0.0.1:9', // no chat: entrance reports fail fast, ignored
    },
  });
async function stop(p) {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

// ---- generators ----------------------------------------------------------------------------
const { generators, ask, askAll } = await startGenerators(
  `${root}bench/realtime-resume-clients.mjs`,
  GENERATORS,
  children,
);
const share = (i) => {
  const per = Math.ceil(CLIENTS / GENERATORS);
  return Math.max(0, Math.min(per, CLIENTS - i * per));
};
async function connectAll(url) {
  const t0 = Date.now();
  const rs = await Promise.all(
    generators.map((g, i) => ask(g, { cmd: 'connect', url, count: share(i) }, 'connected')),
  );
  const ok = rs.reduce((s, r) => s + r.ok, 0);
  log(
    `connected ${ok} clients (${rs.reduce((s, r) => s + r.failed, 0)} failed) in ${Date.now() - t0} ms`,
  );
  return ok;
}

// ---- run -----------------------------------------------------------------------------------
const pub = new Redis(REDIS_URL);
const events = createEventPublisher(pub, prefix);
const { publish } = benchPublisher(events);

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadavgAtStart: os.loadavg().map(r1),
  clients: CLIENTS,
  generators: GENERATORS,
  events: EVENTS,
  gapMs: GAP_MS,
  rounds: [],
};

try {
  // 1. resume off vs on, alternating
  for (let round = 0; round < (arg('skip-rounds', 0) ? 0 : ROUNDS); round++) {
    for (const resume of [false, true]) {
      const rt = await startRealtime(resume);
      await sleep(1000);
      const before = rssKb(rt.child.pid);
      const connected = await connectAll(rt.ws);
      await sleep(3000);
      const after = rssKb(rt.child.pid);
      await askAll({ cmd: 'report' }, 'report');
      const cpuBefore = cpuMs(rt.child.pid);
      for (let i = 0; i < EVENTS; i++) {
        await publish(resume ? 'on' : 'off');
        await sleep(GAP_MS);
      }
      await sleep(1000);
      const cpu = cpuMs(rt.child.pid) - cpuBefore;
      const reps = await askAll({ cmd: 'report' }, 'report');
      const lat = summary(reps.flatMap((r) => r.latencies));
      const deliveredN = reps.reduce((s, r) => s + r.delivered, 0);
      const out = {
        round,
        resume,
        loadavg: os.loadavg().map(r1),
        kbPerConnection: r1((after - before) / connected),
        rssAfterMb: Math.round(after / 1024),
        latencyMs: lat,
        delivered: `${deliveredN}/${EVENTS * connected}`,
        // realtime's own CPU per delivery: the cost, less noisy than latency on a shared box
        cpuMicrosPerDelivery: r1((cpu * 1000) / Math.max(1, deliveredN)),
        serverDisconnects: reps.reduce((s, r) => s + r.closedByServer, 0),
      };
      log(resume ? 'resume ON ' : 'resume OFF', out);
      report.rounds.push(out);
      await askAll({ cmd: 'close' }, 'closed');
      await stop(rt);
    }
  }
  const mean = (on) => {
    const rs = report.rounds.filter((r) => r.resume === on);
    return {
      p99: r1(rs.reduce((s, r) => s + r.latencyMs.p99, 0) / rs.length),
      p50: r1(rs.reduce((s, r) => s + r.latencyMs.p50, 0) / rs.length),
      kbPerConnection: r1(rs.reduce((s, r) => s + r.kbPerConnection, 0) / rs.length),
      cpuMicrosPerDelivery: r1(rs.reduce((s, r) => s + r.cpuMicrosPerDelivery, 0) / rs.length),
    };
  };
  if (report.rounds.length) {
    report.off = mean(false);
    report.on = mean(true);
    report.p99OnOverOff = Math.round((report.on.p99 / report.off.p99) * 100) / 100;
    log('mean off', report.off, 'mean on', report.on, 'p99 on/off', report.p99OnOverOff);
  }

  // 2. reconnect storm
  const a = await startRealtime(true);
  let b = STORM_COLD ? undefined : await startRealtime(true);
  await sleep(1000);
  await connectAll(a.ws);
  await publish('warm');
  await sleep(2000); // every client has a last id
  a.child.kill('SIGKILL');
  await sleep(500);
  const ids = [];
  for (let i = 0; i < STORM_GAP; i++) ids.push(await publish('gap'));
  const gapLastId = ids[ids.length - 1];
  b ??= await startRealtime(true);
  log(`A killed; ${STORM_GAP} events published meanwhile; ${CLIENTS} clients resume on B at once`);
  const t0 = nowMs();
  const storm = askAll(
    { cmd: 'resume', url: b.ws, gapLastId, spreadMs: STORM_SPREAD_MS, timeoutMs: 60_000 },
    'resumed',
  );
  // Live events during the storm: they must follow the gap, once each.
  for (let i = 0; i < STORM_LIVE; i++) {
    ids.push(await publish('live'));
    await sleep(100);
  }
  const resumed = await storm;
  const lastFilled = Math.max(...resumed.map((r) => r.lastFilledAt));
  const filledAfter = summary(resumed.flatMap((r) => r.filledAfterMs));
  await sleep(1500);
  const verified = await askAll({ cmd: 'verify', ids }, 'verified');
  report.storm = {
    clients: CLIENTS,
    gapEvents: STORM_GAP,
    reconnectSpreadMs: STORM_SPREAD_MS,
    coldReplica: STORM_COLD,
    liveEventsDuringStorm: STORM_LIVE,
    reconnected: resumed.reduce((s, r) => s + r.opened, 0),
    failedHandshakes: resumed.reduce((s, r) => s + r.failed, 0),
    gapFilled: resumed.reduce((s, r) => s + r.filled, 0),
    secondsUntilEveryGapFilled: r1((lastFilled - t0) / 1000),
    perClientMsUntilGapFilled: filledAfter,
    exactlyExpected: verified.reduce((s, r) => s + r.exact, 0),
    withMissing: verified.reduce((s, r) => s + r.missing, 0),
    withDuplicates: verified.reduce((s, r) => s + r.duplicated, 0),
    resyncs: verified.reduce((s, r) => s + r.resyncs, 0),
    errors: verified.reduce((s, r) => s + r.errors, 0),
    historyReads: {
      memory: await metric(b.opsUrl, 'realtime_history_reads_total', 'source="memory"'),
      redis: await metric(b.opsUrl, 'realtime_history_reads_total', 'source="redis"'),
    },
    eventsReplayed: await metric(b.opsUrl, 'realtime_events_replayed_total'),
    slowDisconnects: await metric(b.opsUrl, 'realtime_server_disconnects_total', 'reason="slow"'),
    loadavg: os.loadavg().map(r1),
  };
  log('storm', report.storm);
  await askAll({ cmd: 'close' }, 'closed');
  await stop(b);

  report.loadavgAtEnd = os.loadavg().map(r1);
  mkdirSync(`${root}bench/results`, { recursive: true });
  const file = `${root}bench/results/realtime-resume-${report.date.slice(0, 19).replace(/:/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2));
  log(`report written to ${file}`);
  const pass =
    (!report.on || (report.on.kbPerConnection < 30 && report.p99OnOverOff <= 1.1)) &&
    report.storm.secondsUntilEveryGapFilled < 10 &&
    report.storm.exactlyExpected === CLIENTS;
  log(pass ? 'targets met' : 'TARGETS MISSED');
  process.exitCode = pass ? 0 : 1;
} finally {
  await askAll({ cmd: 'close' }, 'closed').catch(() => undefined);
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  pub.disconnect();
  // The private prefix: the stream and nothing else.
  const cleanup = new Redis(REDIS_URL);
  await cleanup.del(`${prefix}svc:events:stream`);
  cleanup.disconnect();
}
