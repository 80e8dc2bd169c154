// @svc/client and @svc/cli as someone outside this repository gets them: `pnpm pack` of
// each (built beforehand: turbo's test task builds this package's dependencies), `npm
// install` of the two tarballs into an empty folder in the system's temp directory, then the
// installed `svc`, ES module and CommonJS scripts, and TypeScript projects resolving the
// client with `node10`, `node16`, `nodenext` and `bundler`, against the real gateway, auth,
// app-store, chat and realtime processes. Also what a registry shows: the manifests' release
// fields, the tarballs' exact contents, versions that match their CHANGELOG and the API
// version (docs/decisions/030-publishing-client-and-cli.md). The installed code runs on this
// Node and on Node 22.12, the oldest `engines` allows, installed like the project's own
// toolchain (`node-<platform>-<arch>` from the npm registry; npm's cache serves later runs).
// pnpm and npm are the ones on PATH (`npm test` puts the project's .tools/ first).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_VERSION } from '@svc/discovery';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { codeFor } from './login.js';
import { freshHome } from './svc-binary.js';
import { createTestSystem, ROOT, type FakeResend } from './system-processes.js';

const OLDEST_NODE = '22.12.0';
const WORK = mkdtempSync(path.join(tmpdir(), 'svc-packed-'));
const PACKS = path.join(WORK, 'packs');
/** The empty folder the tarballs are installed into, as a CI job's checkout would be. */
const CONSUMER = path.join(WORK, 'consumer');
const NODE22 = path.join(WORK, 'node22');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** The workspace manifests of the two packages, as committed. */
const SOURCE = {
  client: JSON.parse(readFileSync(path.join(ROOT, 'packages/client/package.json'), 'utf8')),
  cli: JSON.parse(readFileSync(path.join(ROOT, 'packages/cli/package.json'), 'utf8')),
};
const tarballOf = (pkg: 'client' | 'cli') =>
  path.join(PACKS, `svc-${pkg}-${SOURCE[pkg].version}.tgz`);

/** Where each Node's `node` is: `svc` finds it through PATH (its `#!/usr/bin/env node`). */
const RUNTIMES = [
  {
    name: `Node ${process.versions.node}`,
    version: process.version,
    bin: path.dirname(process.execPath),
  },
  {
    name: `Node ${OLDEST_NODE}`,
    version: `v${OLDEST_NODE}`,
    bin: path.join(NODE22, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin'),
  },
].filter((runtime, i, all) => all.findIndex((r) => r.version === runtime.version) === i);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Running {
  child: ChildProcess;
  done: Promise<Run>;
  output(): string;
}

/**
 * The environment of a user's shell: PATH and HOME (npm's cache and settings), none of the
 * npm_* variables pnpm or this workspace may have set, and `node` first on PATH when given.
 */
function userEnv(nodeBin?: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^npm_/i.test(k) && !k.startsWith('SVC_')) env[k] = v;
  }
  const dirs = [nodeBin, path.join(CONSUMER, 'node_modules', '.bin'), env.PATH].filter(Boolean);
  return { ...env, PATH: dirs.join(path.delimiter), ...extra };
}

function start(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Running {
  const child = spawn(command, args, {
    cwd: options.cwd ?? CONSUMER,
    env: options.env ?? userEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done, output: () => stdout };
}

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  const running = start(command, args, options);
  running.child.stdin!.end();
  return running.done;
}

/** For the setup steps: a failure says what the command printed. */
async function mustRun(...params: Parameters<typeof run>): Promise<Run> {
  const res = await run(...params);
  if (res.code !== 0) {
    throw new Error(
      `${params[0]} ${params[1].join(' ')} exited ${res.code}:\n${res.stdout}\n${res.stderr}`,
    );
  }
  return res;
}

/** pnpm pack of both packages, then npm install of the tarballs into the empty folder. */
async function packAndInstall(): Promise<void> {
  mkdirSync(PACKS);
  mkdirSync(CONSUMER);
  for (const pkg of ['client', 'cli']) {
    const dir = path.join(ROOT, 'packages', pkg);
    if (!existsSync(path.join(dir, 'dist'))) {
      throw new Error(
        `packages/${pkg} is not built: run pnpm turbo run build --filter=@svc/${pkg}`,
      );
    }
    await mustRun('pnpm', ['pack', '--pack-destination', PACKS], { cwd: dir, env: userEnv() });
  }
  const tarballs = readdirSync(PACKS).map((file) => path.join(PACKS, file));
  expect(tarballs.sort()).toEqual([tarballOf('cli'), tarballOf('client')]);
  await mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], {
    timeoutMs: 180_000,
  });
  // An ES module project, so the TypeScript file below is one too (module nodenext).
  await mustRun('npm', ['pkg', 'set', 'type=module']);
}

async function installOldestNode(): Promise<void> {
  await mustRun(
    'npm',
    [
      'install',
      '--prefix',
      NODE22,
      '--prefer-offline',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `node-${process.platform}-${process.arch}@${OLDEST_NODE}`,
    ],
    { cwd: WORK, timeoutMs: 240_000 },
  );
}

const system = createTestSystem();
let resend: FakeResend;
let gateway: ServiceProcess;

beforeAll(async () => {
  const startSystem = async () => {
    resend = await system.resend();
    const [auth, appStore, chat] = await Promise.all([
      system.service('auth'),
      system.service('app-store'),
      system.service('chat'),
    ]);
    const realtime = await system.service('realtime', { CHAT_URL: chat.url });
    gateway = await system.start('gateway/dist/main.js', {
      AUTH_URL: auth.url,
      APP_STORE_URL: appStore.url,
      CHAT_URL: chat.url,
      REALTIME_URL: realtime.url,
    });
  };
  await Promise.all([packAndInstall(), installOldestNode(), startSystem()]);
}, 300_000);

afterAll(async () => {
  await system.stop();
  rmSync(WORK, { recursive: true, force: true });
});

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** The files of a tarball, the CLI's hashed chunk name made stable. */
async function tarballFiles(pkg: 'client' | 'cli'): Promise<string[]> {
  const res = await mustRun('tar', ['-tzf', tarballOf(pkg)], { cwd: WORK });
  return res.stdout
    .trim()
    .split('\n')
    .map((f) =>
      f.replace(/^package\//, '').replace(/^dist\/program-[\w-]+\.js/, 'dist/program-<hash>.js'),
    )
    .sort();
}

async function packedManifest(pkg: 'client' | 'cli') {
  const res = await mustRun('tar', ['-xzOf', tarballOf(pkg), 'package/package.json'], {
    cwd: WORK,
  });
  return JSON.parse(res.stdout);
}

describe('what the registry gets', () => {
  it('exactly the files each package needs: the build, its licence, README and CHANGELOG', async () => {
    const common = ['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'];
    expect(await tarballFiles('client')).toEqual(
      [...common, 'dist/index.d.ts', 'dist/index.js', 'dist/index.js.map'].sort(),
    );
    expect(await tarballFiles('cli')).toEqual(
      [
        ...common,
        'bin/svc.js',
        'dist/main.js',
        'dist/main.js.map',
        'dist/program.d.ts',
        'dist/program.js',
        'dist/program-<hash>.js',
        'dist/program-<hash>.js.map',
      ].sort(),
    );
  });

  it.each(['client', 'cli'] as const)(
    '@svc/%s: public, MIT, with repository, homepage, bugs, keywords, engines, main and types',
    async (pkg) => {
      const manifest = await packedManifest(pkg);
      const files = await tarballFiles(pkg);
      expect(manifest.private).toBeUndefined();
      expect(manifest.license).toBe('MIT');
      expect(manifest.description.length).toBeGreaterThan(20);
      expect(manifest.keywords).toContain('svc');
      expect(manifest.engines).toEqual({ node: '>=22.12' });
      expect(manifest.publishConfig).toEqual({ access: 'public' });
      // One repository for both, each in its own folder of it.
      expect(manifest.repository).toEqual({
        type: 'git',
        url: SOURCE.client.repository.url,
        directory: `packages/${pkg}`,
      });
      const repo = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
      expect(repo).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
      expect(manifest.homepage).toBe(`${repo}/tree/main/packages/${pkg}#readme`);
      expect(manifest.bugs).toEqual({ url: `${repo}/issues` });
      // main and types (for moduleResolution node10) name what exports names, and it is packed.
      expect(manifest.main).toBe(manifest.exports['.'].default);
      expect(manifest.types).toBe(manifest.exports['.'].types);
      expect(files).toContain(manifest.main.replace(/^\.\//, ''));
      expect(files).toContain(manifest.types.replace(/^\.\//, ''));
    },
  );

  it.each(['client', 'cli'] as const)(
    '@svc/%s: a semver version whose CHANGELOG entry names the API version it covers',
    async (pkg) => {
      const { version } = await packedManifest(pkg);
      expect(version).toBe(SOURCE[pkg].version);
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      const changelog = readFileSync(path.join(ROOT, 'packages', pkg, 'CHANGELOG.md'), 'utf8');
      // The newest release is this version, for the API the catalogue describes now.
      const newest = changelog
        .split('\n')
        .find((line) => line.startsWith('## ') && line !== '## Unreleased');
      expect(newest).toBe(`## ${version} (API ${API_VERSION})`);
    },
  );
});

describe('the tarballs', () => {
  it('install with plain npm: no workspace references, no sources, no ws', () => {
    const client = path.join(CONSUMER, 'node_modules/@svc/client');
    const cli = path.join(CONSUMER, 'node_modules/@svc/cli');
    for (const dir of [client, cli]) {
      const text = readFileSync(path.join(dir, 'package.json'), 'utf8');
      expect(text).not.toMatch(/workspace:/);
      // The workspace's `development` condition points at src/, which is not packed.
      expect(text).not.toMatch(/development|src\//);
      expect(existsSync(path.join(dir, 'src'))).toBe(false);
    }
    expect(readJson(path.join(client, 'package.json')).dependencies).toBeUndefined();
    expect(Object.keys(readJson(path.join(cli, 'package.json')).dependencies).sort()).toEqual([
      'commander',
      'zod',
    ]);
    // Everything installed: the two packages and the CLI's two dependencies (no @svc/types,
    // no ws: the WebSocket is the platform's).
    const installed = readdirSync(path.join(CONSUMER, 'node_modules')).filter(
      (name) => !name.startsWith('.'),
    );
    expect(installed.sort()).toEqual(['@svc', 'commander', 'zod']);
    expect(readdirSync(path.join(CONSUMER, 'node_modules/@svc')).sort()).toEqual(['cli', 'client']);
  });

  it.each([
    // Older projects: TypeScript reads `main` and `types` and ignores `exports`.
    { resolution: 'node10', module: 'commonjs' },
    { resolution: 'node16', module: 'node16' },
    { resolution: 'nodenext', module: 'nodenext' },
    // Vite, webpack, esbuild and friends.
    { resolution: 'bundler', module: 'esnext' },
  ])(
    'carry types a TypeScript project checks strictly with moduleResolution $resolution (tsc --noEmit, library files too)',
    async ({ resolution, module }) => {
      writeFileSync(path.join(CONSUMER, 'check.ts'), CHECK_TS);
      const config = `tsconfig.${resolution}.json`;
      writeFileSync(
        path.join(CONSUMER, config),
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: resolution,
            target: 'es2022',
            lib: ['es2022', 'dom'],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
          },
          files: ['check.ts'],
        }),
      );
      const res = await run(process.execPath, [TSC, '-p', config], { timeoutMs: 60_000 });
      expect(res.stdout).toBe('');
      expect(res.code).toBe(0);
      // The file really was checked: one wrong call is reported.
      writeFileSync(path.join(CONSUMER, 'check.ts'), `${CHECK_TS}\nvoid svc.apps.get(42);\n`);
      const wrong = await run(process.execPath, [TSC, '-p', config], { timeoutMs: 60_000 });
      expect(wrong.stdout).toMatch(/check\.ts\(\d+,\d+\): error TS2345/);
      expect(wrong.code).not.toBe(0);
    },
    60_000,
  );
});

/** A TypeScript file using the client, with lines its types must refuse. */
const CHECK_TS = `import { ApiError, SvcClient, type RealtimeMessage, type Subscription } from '@svc/client';

const svc = new SvcClient({ baseUrl: 'https://svc.example', apiKey: 'svc_live_x' });

export async function firstApp(): Promise<string | undefined> {
  const { apps, meta } = await svc.apps.list({ category: 'developer', limit: 5 });
  const total: number = meta.total;
  return apps[0] ? \`\${apps[0].slug} of \${total}\` : undefined;
}

export const describeEvent = (m: RealtimeMessage): string =>
  m.event === 'new_message' ? m.payload.content : m.event;

export function follow(): Subscription {
  return svc.subscribe({ events: ['new_message'], onEvent: (m) => console.log(describeEvent(m)) });
}

export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 409;

// The types are the contract's, not \`any\`: each line below must be refused.
// @ts-expect-error limit is a number
void svc.apps.list({ limit: 'ten' });
// @ts-expect-error no such group
void svc.nothing;
// @ts-expect-error a slug is required
void svc.apps.submit({ name: 'No slug', url: 'https://x.example' });
`;

describe.each(RUNTIMES)('installed, on $name', (runtime) => {
  const slug = `packed-on-node-${runtime.version.split('.')[0]!.slice(1)}`;
  // A private HOME: no session `svc login` stored on this machine is used.
  const env = () => userEnv(runtime.bin, { SVC_BASE_URL: gateway.url, HOME: freshHome() });

  it('runs on that Node', async () => {
    const res = await run('node', ['--version'], { env: env() });
    expect(res.stdout.trim()).toBe(runtime.version);
  });

  it('svc --help and --version (the bin npm linked)', async () => {
    const help = await run('svc', ['--help'], { env: env() });
    expect(help.stdout).toMatch(/^Usage: svc /);
    expect(help.stdout).toMatch(/SVC_API_KEY/);
    expect(help.stderr).toBe('');
    const version = await run('svc', ['--version'], { env: env() });
    expect(version.stdout.trim()).toBe(SOURCE.cli.version);
  });

  it('the client from an .mjs script: logs in, submits an app, follows the chat over WebSocket', async () => {
    const email = `${slug}@example.com`;
    const marker = `hello from the packed client on ${runtime.name}`;
    writeFileSync(
      path.join(CONSUMER, 'use-client.mjs'),
      `import { createInterface } from 'node:readline';
import { ApiError, SvcClient } from '@svc/client';

const [baseUrl, email, slug, marker] = process.argv.slice(2);
const svc = new SvcClient({ baseUrl });
await svc.auth.sendCode(email);
const code = await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const { user } = await svc.auth.verify(email, code.trim());
const app = await svc.apps.submit({ slug, name: 'Packed Client', url: \`https://\${slug}.test\` });
const listed = await svc.apps.list({ q: 'Packed Client' });
let missing;
try {
  await svc.apps.get('no-such-app-here');
} catch (err) {
  missing = err instanceof ApiError ? err.status : String(err);
}
// The real-time channel on the platform's own WebSocket: our message comes back as an event.
const message = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no event in 15 s')), 15_000);
  let sent = false;
  const sub = svc.subscribe({
    onOpen: () => {
      if (!sent) svc.chat.send(marker).catch(reject);
      sent = true;
    },
    onEvent: (e) => {
      if (e.event !== 'new_message' || e.payload.content !== marker) return;
      clearTimeout(timer);
      sub.close();
      resolve(e.payload);
    },
  });
});
console.log(JSON.stringify({ user, app, listed: listed.apps.map((a) => a.slug), missing, message }));
`,
    );
    const script = start('node', ['use-client.mjs', gateway.url, email, slug, marker], {
      env: env(),
    });
    script.child.stdin!.end(`${await codeFor(resend, email)}\n`);
    const res = await script.done;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.user.username).toBe(slug);
    expect(out.app).toMatchObject({ slug, status: 'approved' });
    expect(out.listed).toContain(slug);
    expect(out.missing).toBe(404);
    expect(out.message).toMatchObject({
      type: 'chat',
      content: marker,
      sender_name: out.user.username,
    });
  }, 60_000);

  it('the client from a CommonJS script (require of the ES module, Node ≥ 22.12)', async () => {
    writeFileSync(
      path.join(CONSUMER, 'use-client.cjs'),
      `const { ApiError, SvcClient } = require('@svc/client');

async function main() {
  const svc = new SvcClient({ baseUrl: process.argv[2] });
  const listed = await svc.apps.list({ q: 'Packed Client' });
  let missing;
  try {
    await svc.apps.get('no-such-app-here');
  } catch (err) {
    missing = err instanceof ApiError ? err.status : String(err);
  }
  console.log(JSON.stringify({ listed: listed.apps.map((a) => a.slug), missing }));
}
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
`,
    );
    const res = await run('node', ['use-client.cjs', gateway.url], { env: env() });
    // Node 22.12 warns that require() of an ES module is experimental; Node 24 says nothing.
    const warning = new RegExp(
      [
        String.raw`^\(node:\d+\) ExperimentalWarning: CommonJS module \S+/use-client\.cjs is loading ES Module \S+/@svc/client/dist/index\.js using require\(\)\.`,
        String.raw`Support for loading ES Module in require\(\) is an experimental feature and might change at any time`,
        String.raw`\(Use \`node --trace-warnings \.\.\.\` to show where the warning was created\)`,
        '$',
      ].join('\n'),
    );
    if (runtime.version === `v${OLDEST_NODE}`) expect(res.stderr).toMatch(warning);
    else expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.listed).toContain(slug);
    expect(out.missing).toBe(404);
  });

  it('svc completion bash: valid, and registers itself when sourced', async () => {
    const res = await run('svc', ['completion', 'bash'], { env: env() });
    expect(res.code).toBe(0);
    const file = path.join(WORK, `svc-${runtime.version}.bash`);
    writeFileSync(file, res.stdout);
    const sourced = await run('bash', ['--norc', '-c', `source '${file}' && complete -p svc`], {
      env: env(),
    });
    expect(sourced.stdout.trim()).toBe('complete -o default -F _svc_completion svc');
    expect(res.stdout).toMatch(/svc\/sites\/submit\) offers='[^']*--wait/);
  });

  it('svc apps list --json sees that app', async () => {
    const res = await run('svc', ['apps', 'list', '--json', '-q', 'Packed Client'], { env: env() });
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout);
    expect(out.apps.map((a: { slug: string }) => a.slug)).toContain(slug);
  });

  it('svc chat tail follows a message sent while it runs (global WebSocket)', async () => {
    // --history 1 prints the latest message once subscribed (the subscription opens first).
    const tail = start('svc', ['chat', 'tail', '--json', '--history', '1'], { env: env() });
    tail.child.stdin!.end();
    const content = `live on ${runtime.name}`;
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    await until(() => tail.output().includes('\n'));
    const sent = await run('svc', ['chat', 'send', content], { env: env() });
    expect(sent.stderr).toBe('');
    expect(sent.stdout).toMatch(new RegExp(`: ${content}\\n$`));
    await until(() => tail.output().includes(content));
    tail.child.kill('SIGINT');
    const res = await tail.done;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const events = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1)).toMatchObject({ event: 'new_message', payload: { content } });
  }, 45_000);
});
