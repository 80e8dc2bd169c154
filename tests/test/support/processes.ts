// Starts the real processes (built dist, as in production) for end-to-end tests, each
// with its own ports, PostgreSQL schema and Redis prefix, and stops them with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/service-kit/testing';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface RunningProcess {
  name: string;
  port: number;
  url: string;
  output: () => string;
  /** SIGTERM; resolves with the exit code. */
  stop: () => Promise<number | null>;
}

export async function startProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
): Promise<RunningProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, entry)], {
    cwd: path.join(ROOT, path.dirname(path.dirname(entry))),
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    port,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
