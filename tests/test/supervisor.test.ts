// The supervisor of `npm start` (scripts/supervisor.mjs): a killed child comes back while
// the others keep running, a child that keeps crashing makes it give up (exit 1, naming
// it), and a child that ignores SIGTERM is killed after the grace period, the supervisor
// exiting only once it is gone. Small child scripts, then the real built services.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  TEST_REDIS_URL,
  clearRedisPrefix,
  freePort,
  generateTestKeyPair,
  testRedisPrefix,
} from '@svc/service-kit/testing';
import { ROOT } from './system-processes.js';

interface Spec {
  name: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  readyUrl?: string;
}

/** A child that serves /readyz on PORT, and stops 300 ms after a signal, saying which. */
const SERVER = `require('node:http').createServer((q, s) => s.end('ok'))
  .listen(Number(process.env.PORT), '127.0.0.1');
  for (const name of ['SIGINT', 'SIGTERM']) process.on(name, () => {
    console.log('got ' + name); setTimeout(() => process.exit(0), 300);
  });`;
/** A child that crashes with code 3 shortly after it starts. */
const CRASHER = `setTimeout(() => process.exit(3), 50);`;
/** A child that ignores SIGTERM. */
const STUBBORN = `process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
  setInterval(() => {}, 1000); console.log('up');`;

let dir: string;
let launcher: string;
const pids = new Set<number>();
let running: ChildProcess | undefined;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'supervisor-test-'));
  launcher = path.join(dir, 'launch.mjs');
  const supervisor = pathToFileURL(path.join(ROOT, 'scripts/supervisor.mjs')).href;
  writeFileSync(
    launcher,
    `import { supervise } from ${JSON.stringify(supervisor)};
const { specs, options } = JSON.parse(process.env.SUPERVISE);
supervise(specs, options);
`,
  );
});

afterEach(() => {
  // A failed test must not leave processes behind.
  running?.kill('SIGKILL');
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  pids.clear();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function server(name: string): Promise<Spec> {
  const port = await freePort();
  return {
    name,
    args: ['-e', SERVER],
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    readyUrl: `http://127.0.0.1:${port}/readyz`,
  };
}

async function waitUntilReady(specs: Spec[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const spec of specs) {
    while (
      !(await fetch(spec.readyUrl!).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`${spec.name} not ready after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function startSupervisor(specs: Spec[], options: Record<string, number>) {
  const child = spawn(process.execPath, [launcher], {
    cwd: ROOT,
    env: { ...process.env, SUPERVISE: JSON.stringify({ specs, options }) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, as a terminal's foreground job
  });
  running = child;
  let out = '';
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const m of out.matchAll(/ \S+ started \(pid (\d+)\)$/gm)) pids.add(Number(m[1]));
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return {
    child,
    output: () => out,
    exited,
    /** The pid of each start of `name`, in order (from the supervisor's log). */
    started(name: string): number[] {
      return [...out.matchAll(new RegExp(` ${name} started \\(pid (\\d+)\\)$`, 'gm'))].map((m) =>
        Number(m[1]),
      );
    },
    async waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

describe('supervisor', () => {
  it('restarts a killed child with a new pid until it is ready again, the others keep theirs; Ctrl-C sends each one SIGTERM', async () => {
    const specs = [await server('alpha'), await server('beta'), await server('gamma')];
    const sup = startSupervisor(specs, { firstDelayMs: 200, graceMs: 5000 });
    await sup.waitFor(
      () => specs.every((s) => sup.started(s.name).length === 1),
      'every child to start',
    );
    const [alpha] = sup.started('alpha');
    const others = [...sup.started('beta'), ...sup.started('gamma')];

    process.kill(alpha!, 'SIGKILL');
    await sup.waitFor(() => sup.started('alpha').length === 2, 'alpha to start again');
    const [, again] = sup.started('alpha');
    expect(again).not.toBe(alpha);
    expect(sup.output()).toMatch(
      /alpha exited \(signal SIGKILL\) after [\d.]+ s; restarting in 0\.2 s/,
    );
    await sup.waitFor(
      () => sup.output().includes(`alpha is ready again (pid ${again})`),
      'alpha to be ready again',
    );
    expect((await fetch(specs[0]!.readyUrl!)).status).toBe(200);
    expect(others.every(alive)).toBe(true);
    expect([...sup.started('beta'), ...sup.started('gamma')]).toEqual(others);

    // Ctrl-C: a terminal signals its whole foreground process group. Each child gets one
    // signal, the supervisor's SIGTERM (a second one would skip a service's graceful stop).
    // The same keypress passed on again by a wrapper (npm, timeout) is still one Ctrl-C.
    process.kill(-sup.child.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 150));
    process.kill(sup.child.pid!, 'SIGINT');
    expect((await sup.exited).code).toBe(0);
    expect(sup.output()).not.toMatch(/second Ctrl-C/);
    expect([again!, ...others].filter(alive)).toEqual([]);
    const signals = [...sup.output().matchAll(/^(\w+) +\| got (\w+)$/gm)].map((m) => m.slice(1));
    expect(signals.sort()).toEqual([
      ['alpha', 'SIGTERM'],
      ['beta', 'SIGTERM'],
      ['gamma', 'SIGTERM'],
    ]);
  }, 60_000);

  it('gives up when a child keeps crashing: stops the others and exits 1 naming it', async () => {
    const steady = await server('steady');
    const sup = startSupervisor([{ name: 'crasher', args: ['-e', CRASHER] }, steady], {
      firstDelayMs: 50,
      maxCrashes: 3,
      crashWindowMs: 10_000,
      graceMs: 5000,
    });
    const { code } = await sup.exited;
    expect(code).toBe(1);
    expect(sup.started('crasher')).toHaveLength(3);
    expect(sup.output()).toMatch(/crasher exited \(code 3\): 3 crashes within 10 s, giving up/);
    expect(sup.started('steady').filter(alive)).toEqual([]);
  }, 60_000);

  it('SIGKILLs a child that ignores SIGTERM after the grace period and exits only once it is gone', async () => {
    const polite = await server('polite');
    const sup = startSupervisor([{ name: 'stubborn', args: ['-e', STUBBORN] }, polite], {
      graceMs: 1500,
    });
    await sup.waitFor(
      () => sup.output().includes('stubborn | up') && sup.started('polite').length === 1,
      'both children to start',
    );
    const [stubborn] = sup.started('stubborn');
    // Seen as the supervisor exits: is the stubborn child still there?
    let stubbornAliveAtExit: boolean | undefined;
    sup.child.once('exit', () => (stubbornAliveAtExit = alive(stubborn!)));

    const signalled = Date.now();
    sup.child.kill('SIGTERM');
    const { code, at } = await sup.exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeGreaterThanOrEqual(1500);
    expect(sup.output()).toMatch(/stubborn \| ignoring SIGTERM/);
    expect(sup.output()).toMatch(/stubborn still running 1\.5 s after SIGTERM: SIGKILL/);
    expect(stubbornAliveAtExit).toBe(false);
    expect(sup.started('polite').filter(alive)).toEqual([]);
  }, 60_000);

  it('runs the real built services: a killed one is back and ready, and Ctrl-C stops each with one signal', async () => {
    const redisPrefix = testRedisPrefix();
    const { publicKey } = generateTestKeyPair();
    const service = async (name: string): Promise<Spec> => {
      const port = await freePort();
      return {
        name,
        args: [`services/${name}/dist/main.js`],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          REDIS_URL: TEST_REDIS_URL,
          REDIS_PREFIX: redisPrefix,
          JWT_PUBLIC_KEY: publicKey,
          PORT: String(port),
        },
        readyUrl: `http://127.0.0.1:${port}/readyz`,
      };
    };
    const specs = [await service('translate'), await service('realtime')];
    const sup = startSupervisor(specs, { firstDelayMs: 200 });
    try {
      await waitUntilReady(specs, 30_000);
      const [translate] = sup.started('translate');
      const [realtime] = sup.started('realtime');

      process.kill(translate!, 'SIGKILL');
      await sup.waitFor(() => sup.started('translate').length === 2, 'translate to restart');
      const [, again] = sup.started('translate');
      await sup.waitFor(
        () => sup.output().includes(`translate is ready again (pid ${again})`),
        'translate to be ready again',
        30_000,
      );
      expect(sup.started('realtime')).toEqual([realtime]);
      expect((await fetch(specs[1]!.readyUrl!)).status).toBe(200);

      // Ctrl-C: a terminal signals its whole foreground process group.
      const signalled = Date.now();
      process.kill(-sup.child.pid!, 'SIGINT');
      const { code, at } = await sup.exited;
      expect(code).toBe(0);
      // Each service got one signal (a second one skips the graceful stop) and stopped
      // gracefully, well before the grace period.
      expect(sup.output()).not.toMatch(/second signal|still running/);
      expect(at - signalled).toBeLessThan(5000);
      expect([again!, realtime!].filter(alive)).toEqual([]);
    } finally {
      await clearRedisPrefix(redisPrefix);
    }
  }, 90_000);
});
