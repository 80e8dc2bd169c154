// Runs the `svc` command (packages/cli/bin/svc.js, the built CLI) as a user would: only the
// environment given, plus PATH and a private HOME unless the test names one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './system-processes.js';

const SVC = path.join(ROOT, 'packages/cli/bin/svc.js');

export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningSvc {
  child: ChildProcess;
  /** Settles when the process exits (killed after 30 s). */
  done: Promise<SvcRun>;
  /** What it has printed so far. */
  output(): string;
  errors(): string;
}

/** A fresh, empty home folder. */
export const freshHome = () => mkdtempSync(path.join(tmpdir(), 'svc-e2e-home-'));

/** Starts svc; `input` writes its stdin (otherwise stdin is closed at once). */
export function startSvc(
  args: string[],
  env: Record<string, string>,
  input?: (stdin: NodeJS.WritableStream) => Promise<void>,
): RunningSvc {
  const child = spawn(process.execPath, [SVC, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: freshHome(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  if (input) void input(child.stdin);
  else child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<SvcRun>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, done, output: () => stdout, errors: () => stderr };
}

/** Runs svc to the end. */
export const runSvc = (
  args: string[],
  env: Record<string, string>,
  input?: (stdin: NodeJS.WritableStream) => Promise<void>,
): Promise<SvcRun> => startSvc(args, env, input).done;
