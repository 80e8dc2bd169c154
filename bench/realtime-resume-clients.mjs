// Load generator for bench/realtime-resume.mjs (forked with IPC). Opens WebSocket clients,
// records for every bench message the latency from the send time written into its content
// (`bench:<mode>:<seq>:<epoch ms>`), and keeps each client's last event id. On `resume` it
// reconnects every client at once with `?last_event_id=` and records when each one got
// the last event of the gap; on `verify` it checks that each client's events since the
// resume are exactly the expected ids, in order.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const { WebSocket } = createRequire(new URL('../services/realtime/package.json', import.meta.url))(
  'ws',
);
const nowMs = () => performance.timeOrigin + performance.now();

/** @type {Array<{ ws: any, lastId?: string, since: string[], filledAt?: number, resyncs: number, errors: number }>} */
let clients = [];
let latencies = [];
let delivered = 0;
let closedByServer = 0;
let gapLastId;
let onFilled = () => undefined;

function attach(c, ws) {
  c.ws = ws;
  ws.on('message', (data) => {
    const at = nowMs();
    const text = data.toString();
    const m = JSON.parse(text);
    if (m.event === 'resync') c.resyncs++;
    if (m.event === 'error') c.errors++;
    const i = text.indexOf('bench:');
    if (i >= 0) {
      const sent = Number(text.slice(i, text.indexOf('"', i)).split(':')[3]);
      latencies.push(at - sent);
      delivered++;
    }
    if (!m.id) return; // WS_RESUME=false: no ids
    c.lastId = m.id;
    c.since.push(m.id);
    if (m.id === gapLastId && c.filledAt === undefined) {
      c.filledAt = at;
      onFilled();
    }
  });
  ws.once('close', (code) => {
    if (code !== 1000 && code !== 1005 && code !== 1006) closedByServer++;
  });
}

function open(c, url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    attach(c, ws);
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
  });
}

async function pool(count, concurrency, fn) {
  let next = 0;
  let ok = 0;
  let failed = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      if (await fn(i)) ok++;
      else failed++;
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { ok, failed };
}

process.on('message', async (msg) => {
  if (msg.cmd === 'connect') {
    clients = Array.from({ length: msg.count }, () => ({ since: [], resyncs: 0, errors: 0 }));
    const r = await pool(msg.count, msg.concurrency ?? 100, (i) => open(clients[i], msg.url));
    process.send({ type: 'connected', ...r });
  } else if (msg.cmd === 'report') {
    process.send({ type: 'report', latencies, delivered, closedByServer });
    latencies = [];
    delivered = 0;
  } else if (msg.cmd === 'resume') {
    // Every client at once: all handshakes are started in the same tick.
    gapLastId = msg.gapLastId;
    const started = nowMs();
    for (const c of clients) {
      c.since = [];
      c.filledAt = undefined;
    }
    const all = new Promise((resolve) => {
      onFilled = () => {
        if (clients.every((c) => c.filledAt !== undefined)) resolve();
      };
    });
    // spreadMs 0: every handshake in the same tick; else each after a random delay in
    // [0, spreadMs] (what @svc/client's first reconnection does: full jitter of 500 ms).
    const spread = msg.spreadMs ?? 0;
    const opened = await Promise.all(
      clients.map(async (c) => {
        if (spread > 0) await new Promise((r) => setTimeout(r, Math.random() * spread));
        return open(c, `${msg.url}${c.lastId ? `?last_event_id=${c.lastId}` : ''}`);
      }),
    );
    const timeout = new Promise((r) => setTimeout(r, msg.timeoutMs ?? 60_000));
    await Promise.race([all, timeout]);
    const filled = clients.filter((c) => c.filledAt !== undefined);
    process.send({
      type: 'resumed',
      started,
      opened: opened.filter(Boolean).length,
      failed: opened.filter((x) => !x).length,
      filled: filled.length,
      lastFilledAt: Math.max(...filled.map((c) => c.filledAt)),
      filledAfterMs: filled.map((c) => c.filledAt - started),
    });
  } else if (msg.cmd === 'verify') {
    const want = msg.ids.join(',');
    let exact = 0;
    let missing = 0;
    let duplicated = 0;
    for (const c of clients) {
      if (c.since.join(',') === want) exact++;
      else {
        const got = new Set(c.since);
        if (msg.ids.some((id) => !got.has(id))) missing++;
        if (got.size !== c.since.length) duplicated++;
      }
    }
    process.send({
      type: 'verified',
      exact,
      missing,
      duplicated,
      resyncs: clients.reduce((s, c) => s + c.resyncs, 0),
      errors: clients.reduce((s, c) => s + c.errors, 0),
    });
  } else if (msg.cmd === 'close') {
    for (const c of clients) c.ws?.terminate();
    clients = [];
    closedByServer = 0;
    process.send({ type: 'closed' });
  }
});
process.send({ type: 'ready' });
