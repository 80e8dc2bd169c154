// `npm start`: installs what is needed (pnpm included), builds, applies migrations,
// starts the gateway, every service and the sites worker, waits until all are ready and
// prints the URL. Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, ensureDependencies, ensurePnpm, installDependencies, log, migrate, run } from './lib.mjs';

const PROCESSES = [
  { name: 'auth', dir: 'services/auth', entry: 'dist/main.js', port: 4001 },
  { name: 'app-store', dir: 'services/app-store', entry: 'dist/main.js', port: 4002 },
  { name: 'sites', dir: 'services/sites', entry: 'dist/main.js', port: 4003 },
  { name: 'sites-worker', dir: 'services/sites', entry: 'dist/worker/main.js', port: 4013 },
  { name: 'chat', dir: 'services/chat', entry: 'dist/main.js', port: 4004 },
  { name: 'translate', dir: 'services/translate', entry: 'dist/main.js', port: 4005 },
  { name: 'realtime', dir: 'services/realtime', entry: 'dist/main.js', port: 4006 },
  { name: 'gateway', dir: 'gateway', entry: 'dist/main.js', port: Number(process.env.PORT ?? 8080) },
];

ensurePnpm();
installDependencies();
await ensureDependencies();
log('building (turbo run build)');
run('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only'], { env: { TURBO_TELEMETRY_DISABLED: '1' } });
migrate();

const children = [];
let stopping = false;
const width = Math.max(...PROCESSES.map((p) => p.name.length));

for (const p of PROCESSES) {
  const child = spawn(process.execPath, [p.entry], {
    cwd: path.join(ROOT, p.dir),
    env: { NODE_ENV: 'development', ...process.env, PORT: String(p.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `${p.name.padEnd(width)} | `;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${p.name} exited (${signal ?? code}); stopping everything`);
      stop(1);
    }
  });
  children.push({ ...p, child });
}

async function ready(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping every process');
  for (const { child } of children) child.kill('SIGTERM');
  const timer = setTimeout(() => process.exit(code), 15_000);
  Promise.all(children.map(({ child }) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))))).then(() => {
    clearTimeout(timer);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

const deadline = Date.now() + 60_000;
for (;;) {
  const states = await Promise.all(children.map((c) => ready(c.port)));
  if (states.every(Boolean)) break;
  if (Date.now() > deadline) {
    const waiting = children.filter((_, i) => !states[i]).map((c) => c.name);
    console.error(`not ready after 60 s: ${waiting.join(', ')}`);
    stop(1);
    break;
  }
  await new Promise((r) => setTimeout(r, 500));
}
if (!stopping) {
  const gateway = children.find((c) => c.name === 'gateway');
  log(`all ${children.length} processes are ready`);
  log(`the API is at http://localhost:${gateway.port}  (Ctrl-C stops everything)`);
}
