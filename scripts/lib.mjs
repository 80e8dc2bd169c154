// Shared by the start, test and migrate scripts: finding pnpm, running commands, and
// checking that PostgreSQL and Redis are there (starting them when this machine can).
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function log(message) {
  console.log(`\x1b[36m[svc]\x1b[0m ${message}`);
}

export function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts, env: { ...process.env, ...opts.env } });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${result.status ?? result.signal}`);
  }
}

export function installDependencies() {
  log('installing dependencies (pnpm install --frozen-lockfile)');
  run('pnpm', ['install', '--frozen-lockfile'], { env: { CI: 'true' } });
}

function canConnect(port, host = '127.0.0.1', timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

const DEPENDENCIES = [
  {
    name: 'PostgreSQL',
    url: () => new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc'),
    defaultPort: 5432,
    start: () =>
      hasCommand('pg_ctlcluster') &&
      spawnSync('sh', ['-c', 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -1) main start'], { stdio: 'inherit' })
        .status === 0,
    help: [
      'PostgreSQL is not reachable. Start it, then run this command again:',
      '  Debian/Ubuntu: sudo apt-get install -y postgresql && sudo pg_ctlcluster $(ls /etc/postgresql) main start',
      '  Docker:        docker compose up -d postgres',
      '  Elsewhere:     set DATABASE_URL=postgresql://USER:PASSWORD@HOST:PORT/DB',
    ],
  },
  {
    name: 'Redis',
    // A cluster or sentinel URL (redis+cluster://h:p,h:p) lists several nodes: probe the first
    // (a sentinel's default port is 26379); only a plain redis:// one is started here.
    url: () => {
      const raw = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
      const multi = /^rediss?\+(cluster|sentinel):\/\/(?:[^@/]*@)?([^,/?#]+)/.exec(raw);
      if (!multi) return new URL(raw);
      const first = new URL(`redis://${multi[2]}`);
      if (!first.port && multi[1] === 'sentinel') first.port = '26379';
      first.multiNode = true;
      return first;
    },
    defaultPort: 6379,
    start: () =>
      hasCommand('redis-server') &&
      spawnSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'], {
        stdio: 'inherit',
      }).status === 0,
    help: [
      'Redis is not reachable. Start it, then run this command again:',
      '  Debian/Ubuntu: sudo apt-get install -y redis-server && redis-server --daemonize yes',
      '  Docker:        docker compose up -d redis',
      '  Elsewhere:     set REDIS_URL=redis://HOST:PORT',
    ],
  },
];

/** Checks PostgreSQL and Redis; starts a local one that is installed but stopped. */
export async function ensureDependencies() {
  for (const dep of DEPENDENCIES) {
    const url = dep.url();
    const port = Number(url.port || dep.defaultPort);
    const host = url.hostname || '127.0.0.1';
    if (await canConnect(port, host)) continue;
    const local = ['127.0.0.1', 'localhost', '::1'].includes(host) && !url.multiNode;
    if (local) {
      log(`${dep.name} is not running on ${host}:${port}; trying to start it`);
      if (dep.start()) {
        for (let i = 0; i < 20 && !(await canConnect(port, host)); i++) await new Promise((r) => setTimeout(r, 500));
        if (await canConnect(port, host)) {
          log(`${dep.name} started`);
          continue;
        }
      }
    }
    console.error(`\n${dep.help.join('\n')}\n`);
    process.exit(1);
  }
}

/** The services that own a PostgreSQL schema, in migration order. */
export const MIGRATED = ['@svc/auth', '@svc/app-store', '@svc/sites', '@svc/chat'];

export function migrate() {
  for (const pkg of MIGRATED) {
    log(`applying migrations of ${pkg}`);
    run('pnpm', ['--filter', pkg, 'exec', 'prisma', 'migrate', 'deploy'], {
      env: { CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    });
  }
}

/** Where the browser tests find Chromium (Debian's package; CHROMIUM_PATH overrides). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The web client's tests drive a real Chromium. Test tools' own browser downloads cannot
 * work on a machine without internet, so Debian's package is installed (as root, with
 * apt-get) when it is missing; elsewhere the command to run is printed.
 */
export function ensureChromium() {
  if (spawnSync(CHROMIUM_PATH, ['--version'], { stdio: 'ignore' }).status === 0) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && hasCommand('apt-get')) {
    log(`Chromium is missing (${CHROMIUM_PATH}); installing Debian's chromium package`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env: { ...process.env, ...env } });
    if (result.status !== 0) {
      // The package lists may be missing or stale on a fresh machine.
      run('apt-get', ['update'], { env });
      result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env: { ...process.env, ...env } });
    }
    if (result.status === 0 && spawnSync(CHROMIUM_PATH, ['--version'], { stdio: 'ignore' }).status === 0) return;
  }
  console.error(
    [
      '',
      `Chromium is not installed at ${CHROMIUM_PATH}; the web client's browser tests need it.`,
      '  Debian/Ubuntu: sudo apt-get install -y chromium',
      '  Elsewhere:     install Chromium or Chrome and set CHROMIUM_PATH to its executable',
      '',
    ].join('\n'),
  );
  process.exit(1);
}
