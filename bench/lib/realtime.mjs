// What bench/realtime.mjs and bench/realtime-resume.mjs share: starting a built service on
// a private Redis prefix, the forked WebSocket generators and their IPC, RSS and /metrics
// readings, the latency summary and the chat event both publish through the kit.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { freePort, waitFor } from './processes.mjs';

const root = new URL('../..', import.meta.url).pathname;

export const nowMs = () => performance.timeOrigin + performance.now();
export const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
export const r1 = (v) => Math.round(v * 10) / 10;

/** `--name <number>` from the command line, else `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

/**
 * Starts `services/<name>/dist/main.js` on free ports with `env` (over REDIS_URL, the
 * prefix, NODE_ENV=test, and no per-IP socket cap: every generated client is 127.0.0.1),
 * adds it to `children` and waits for /readyz. /metrics is on the private ops listener
 * (docs/decisions/013-operations-port.md): `opsUrl`.
 */
export async function startService(name, { redisUrl, prefix, env = {}, children }) {
  const port = await freePort();
  const opsPort = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: `${root}services/${name}`,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      WS_MAX_CONNECTIONS_PER_IP: '0',
      ...env,
      PORT: String(port),
      OPS_PORT: String(opsPort),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, child, name, { attempts: 200 });
  return {
    child,
    port,
    url,
    ws: `ws://127.0.0.1:${port}/api/ws`,
    opsUrl: `http://127.0.0.1:${opsPort}`,
  };
}

/** Resident memory of a process, in KB. */
export const rssKb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

/** The value of the first sample of `name` whose labels contain `labels` (0 if none). */
export async function metric(opsUrl, name, labels = '') {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * Forks `count` generator processes of `script` (each says `{ type: 'ready' }` first);
 * `ask(g, msg, type)` sends a command and resolves with the generator's first answer of
 * that type, `askAll` does so with every generator.
 */
export async function startGenerators(script, count, children) {
  const generators = [];
  for (let i = 0; i < count; i++) {
    const g = fork(script, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(g);
    await new Promise((resolve) => g.once('message', resolve));
    generators.push(g);
  }
  const ask = (g, msg, type) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type !== type) return;
        g.off('message', on);
        resolve(m);
      };
      g.on('message', on);
      g.send(msg);
    });
  const askAll = (msg, type) => Promise.all(generators.map((g) => ask(g, msg, type)));
  return { generators, ask, askAll };
}

export const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export function summary(xs) {
  const s = Float64Array.from(xs).sort();
  return {
    n: s.length,
    p50: r1(pct(s, 50)),
    p90: r1(pct(s, 90)),
    p99: r1(pct(s, 99)),
    max: r1(s[s.length - 1]),
  };
}

/**
 * A chat message event published through the kit's publisher, as chat publishes it; its
 * content `bench:<mode>:<seq>:<send time in ms>` gives the generators the latency.
 * `nextSeq()` numbers other bench messages (e.g. POSTed ones) from the same counter.
 */
export function benchPublisher(events) {
  let seq = 0;
  return {
    nextSeq: () => seq++,
    publish: (mode) =>
      events.publish('new_message', {
        id: `bench-${seq}`,
        type: 'chat',
        content: `bench:${mode}:${seq++}:${nowMs()}`,
        content_key: null,
        content_params: null,
        sender_name: 'Visitor from Tokyo #1A2B',
        sender_location: 'JP|Tokyo',
        like_count: 0,
        created_at: new Date().toISOString(),
      }),
  };
}
