// The supervisor behind `npm start`: runs each process with its output prefixed by its
// name, restarts one that exits on its own (with backoff), gives up when one keeps
// crashing, and on SIGINT/SIGTERM stops them all, exiting only once every child is gone.
import { spawn } from 'node:child_process';
import { log as defaultLog } from './lib.mjs';

export const DEFAULTS = {
  /** First restart delay; doubled after each crash, up to maxDelayMs. */
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  /** A process up this long has recovered: its next crash starts again from firstDelayMs. */
  stableMs: 30_000,
  /** This many unexpected exits of one process within crashWindowMs: stop everything. */
  maxCrashes: 5,
  crashWindowMs: 60_000,
  /** SIGTERM, then SIGKILL after this (above every service's SHUTDOWN_TIMEOUT_MS + 1 s). */
  graceMs: 15_000,
  /** How often a starting process's readyUrl is polled. */
  readyPollMs: 500,
};

/**
 * Starts `specs` ({ name, command?, args, cwd, env, readyUrl? }) and keeps them running.
 * Returns { stop(code), waitUntilReady(ms) }. stop() (also on SIGINT/SIGTERM, code 0)
 * ends with `exit(code)`, by default process.exit, once every child has exited.
 */
export function supervise(specs, options = {}) {
  const opts = { ...DEFAULTS, ...options };
  const log = opts.log ?? defaultLog;
  const exit = opts.exit ?? ((code) => process.exit(code));
  const width = Math.max(...specs.map((s) => s.name.length));
  const procs = specs.map((spec) => ({
    spec,
    child: undefined,
    startedAt: 0,
    ready: false,
    restarts: 0,
    nextDelayMs: opts.firstDelayMs,
    crashes: [],
    restartTimer: undefined,
  }));
  let stopping;

  function start(p) {
    const { spec } = p;
    const child = spawn(spec.command ?? process.execPath, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches the supervisor only, which stops each child
      // with one SIGTERM (a second signal makes the services skip their graceful stop),
      // and a signal to the group reaches anything the child started.
      detached: true,
    });
    p.child = child;
    p.startedAt = Date.now();
    p.ready = !spec.readyUrl;
    const prefix = `${spec.name.padEnd(width)} | `;
    for (const stream of [child.stdout, child.stderr]) prefixLines(stream, prefix);
    child.once('error', (err) => {
      log(`${spec.name}: ${err.message}`);
      if (child.pid === undefined) exited(p, child, err.code ?? 1, null); // never started
    });
    child.once('exit', (code, signal) => exited(p, child, code, signal));
    if (child.pid !== undefined) log(`${spec.name} started (pid ${child.pid})`);
    if (spec.readyUrl) void watchReady(p, child);
  }

  function exited(p, child, code, signal) {
    if (p.child !== child) return;
    p.child = undefined;
    if (stopping) return;
    const now = Date.now();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    const upMs = now - p.startedAt;
    p.crashes = [...p.crashes.filter((t) => now - t < opts.crashWindowMs), now];
    if (p.crashes.length >= opts.maxCrashes) {
      console.error(
        `[svc] ${p.spec.name} exited (${how}): ${p.crashes.length} crashes within ` +
          `${seconds(opts.crashWindowMs)}, giving up; stopping everything`,
      );
      stop(1);
      return;
    }
    if (upMs >= opts.stableMs) p.nextDelayMs = opts.firstDelayMs;
    const delay = p.nextDelayMs;
    p.nextDelayMs = Math.min(delay * 2, opts.maxDelayMs);
    log(
      `${p.spec.name} exited (${how}) after ${seconds(upMs)}; restarting in ${seconds(delay)} ` +
        `(crash ${p.crashes.length}; ${opts.maxCrashes} crashes within ${seconds(opts.crashWindowMs)} stop everything)`,
    );
    p.restartTimer = setTimeout(() => {
      p.restartTimer = undefined;
      p.restarts++;
      start(p);
    }, delay);
  }

  async function watchReady(p, child) {
    while (p.child === child && !stopping) {
      const ok = await fetch(p.spec.readyUrl, { signal: AbortSignal.timeout(2000) }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok && p.child === child) {
        p.ready = true;
        if (p.restarts > 0) log(`${p.spec.name} is ready again (pid ${child.pid})`);
        return;
      }
      await sleep(opts.readyPollMs);
    }
  }

  /**
   * SIGTERM, SIGKILL after the grace period; resolves once the child has exited and its
   * last output is copied (or 1 s after the exit, should something else hold its pipes).
   */
  function terminate(p) {
    const { child } = p;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log(`${p.spec.name} still running ${seconds(opts.graceMs)} after SIGTERM: SIGKILL`);
        signal(child, 'SIGKILL');
      }, opts.graceMs);
      const exited = () => {
        clearTimeout(timer);
        setTimeout(resolve, 1000);
      };
      child.once('close', resolve);
      if (child.exitCode !== null || child.signalCode !== null) exited();
      else {
        child.once('exit', exited);
        signal(child, 'SIGTERM');
      }
    });
  }

  function stop(code = 0) {
    if (stopping) return stopping;
    log('stopping every process');
    for (const p of procs) clearTimeout(p.restartTimer);
    stopping = Promise.all(procs.filter((p) => p.child).map(terminate)).then(() => {
      log('every process has exited');
      exit(code);
    });
    return stopping;
  }

  /**
   * True once every process answers its readyUrl; false if it is stopping, or after `ms`:
   * then it names the processes not ready and stops everything (exit 1).
   */
  async function waitUntilReady(ms) {
    const deadline = Date.now() + ms;
    while (!stopping && !procs.every((p) => p.ready)) {
      if (Date.now() > deadline) {
        const waiting = procs.filter((p) => !p.ready).map((p) => p.spec.name);
        console.error(`[svc] not ready after ${seconds(ms)}: ${waiting.join(', ')}`);
        stop(1);
        break;
      }
      await sleep(200);
    }
    return !stopping;
  }

  for (const p of procs) start(p);
  if (opts.handleSignals ?? true) {
    let firstSignalAt = 0;
    const onSignal = (name) => {
      if (!stopping) {
        firstSignalAt = Date.now();
        return void stop(0);
      }
      // One keypress can arrive twice (the terminal's group signal plus a wrapper such as
      // `timeout` or npm passing it on): only a Ctrl-C a second later counts as a second one.
      if (name !== 'SIGINT' || Date.now() - firstSignalAt < 1000) return;
      // A second Ctrl-C: no more waiting for graceful stops; still wait for the exits.
      log('second Ctrl-C: killing every process now');
      for (const p of procs) if (p.child) signal(p.child, 'SIGKILL');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return { stop, waitUntilReady };
}

/** Signals the child's process group (it and anything it started), else the child alone. */
function signal(child, name) {
  try {
    process.kill(-child.pid, name);
  } catch {
    child.kill(name);
  }
}

/** Copies a child's output to ours line by line, each line prefixed with its name. */
function prefixLines(stream, prefix) {
  let buffered = '';
  stream.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) process.stdout.write(prefix + line + '\n');
  });
  stream.on('end', () => {
    if (buffered) process.stdout.write(prefix + buffered + '\n');
    buffered = '';
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms) => `${Number((ms / 1000).toFixed(1))} s`;
