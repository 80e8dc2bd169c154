// Test support: a service entry point started as production starts it (its own Node
// process) on a free port, polled until healthy, and stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import net from 'node:net';

// Ports for test processes come from below the kernel's ephemeral range (Linux: 32768–60999),
// where neither listen(0) nor an outgoing connection ever lands, walked in order from a random
// start: a port checked here cannot be handed by the kernel to another process before the
// child binds it (which listen(0)-then-close allowed: a web process once found its port taken
// by another test's ops listener). Test processes running at once (jest workers of several
// packages) meet only if their walks overlap in time and place.
const FIRST_PORT = 10_000;
const PORT_COUNT = 22_000;
let nextPort = FIRST_PORT + randomInt(PORT_COUNT);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    // No host: the dual-stack wildcard, so a port anyone holds on any address is refused.
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago, from this process's walk below the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = nextPort;
    nextPort = nextPort + 1 >= FIRST_PORT + PORT_COUNT ? FIRST_PORT : nextPort + 1;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port among 200 from ${nextPort - 200}`);
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** The private ops listener (OPS_PORT): /metrics and the detailed /readyz. */
  opsPort: number;
  opsUrl: string;
  /** stdout + stderr so far, for failure messages. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit code (rejects if still running after `ms`). */
  stop: (ms?: number) => Promise<number | null>;
}

/**
 * Spawns `entry` (relative to `cwd`) with PORT set to a free port. `source: true` runs
 * TypeScript through tsx with the workspace's development condition; otherwise the
 * built JavaScript runs as in production.
 */
export async function spawnService(opts: {
  cwd: string;
  entry: string;
  env?: Record<string, string>;
  source?: boolean;
  /** A port chosen beforehand (two processes that must know each other's address). */
  port?: number;
}): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  let opsPort = await freePort();
  while (opsPort === port) opsPort = await freePort();
  const args = opts.source
    ? ['--import', 'tsx', '--conditions=development', opts.entry]
    : [opts.entry];
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      OPS_PORT: String(opsPort),
      ...opts.env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const proc: ServiceProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    opsPort,
    opsUrl: `http://127.0.0.1:${opsPort}`,
    output: () => out,
    exited,
    async stop(ms = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`still running ${ms} ms after SIGTERM:\n${out}`));
        }, ms);
      });
      try {
        return (await Promise.race([exited, timeout])).code;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return proc;
}

/** Polls GET path until it answers 200; fails early if the process dies. */
export async function waitForOk(
  proc: ServiceProcess,
  path: string,
  timeoutMs = 40_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  void proc.exited.then(() => (dead = true));
  while (Date.now() < deadline && !dead) {
    const ok = await fetch(`${proc.url}${path}`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(
    `${path} never answered 200${dead ? ' (the process exited)' : ''}:\n${proc.output()}`,
  );
}
