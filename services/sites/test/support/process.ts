// Starts a service entry point as production does (a separate Node process), on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export const SERVICE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A port nobody listens on right now: bind port 0, read it, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  /** stdout + stderr so far, for failure messages. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function spawnService(entry: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=development', entry], {
    cwd: SERVICE_ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, port, output: () => out, exited };
}

/** Polls GET url until it answers 200 (or the process dies, or time runs out). */
export async function waitForOk(proc: ServiceProcess, path: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  void proc.exited.then(() => (dead = true));
  while (Date.now() < deadline && !dead) {
    try {
      const res = await fetch(`http://127.0.0.1:${proc.port}${path}`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${path} never answered 200:\n${proc.output()}`);
}

/** Resolves with the exit code, or rejects if the process is still running after `ms`. */
export async function exitWithin(proc: ServiceProcess, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running ${ms} ms after SIGTERM:\n${proc.output()}`)), ms);
  });
  try {
    const { code } = await Promise.race([proc.exited, timeout]);
    return code;
  } finally {
    clearTimeout(timer);
  }
}
