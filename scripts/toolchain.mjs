// The toolchain the project runs on, installed into .tools/ from the npm registry, so a
// machine with any Node and npm (e.g. Debian's Node 20) is enough: the official Node build
// published as `node-<platform>-<arch>` at a pinned version (checked after install) and
// pnpm at the version package.json pins. `useProjectNode()` re-runs the calling script
// under that Node with .tools/node_modules/.bin first on PATH, so everything it starts
// (pnpm, turbo, tsc, jest, the services) runs on it too.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Node 24 LTS. Change it here, in .nvmrc, the Dockerfile's NODE_IMAGE and `engines`. */
export const NODE_VERSION = '24.21.0';
export const PNPM_VERSION = '10.34.9';

const TOOLS = path.join(ROOT, '.tools');
const BIN = path.join(TOOLS, 'node_modules', '.bin');
const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;
const NODE_HOME = path.join(TOOLS, 'node_modules', NODE_PACKAGE);
const NODE_BIN = path.join(NODE_HOME, 'bin', 'node');
const PNPM_BIN = path.join(BIN, 'pnpm');

const say = (message) => console.log(`\x1b[36m[svc]\x1b[0m ${message}`);

function versionOf(command, args = ['--version']) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Installs Node and pnpm into .tools/ when missing or at another version; checks both. */
export function ensureToolchain() {
  const wanted = [];
  if (versionOf(NODE_BIN) !== `v${NODE_VERSION}`) wanted.push(`${NODE_PACKAGE}@${NODE_VERSION}`);
  if (versionOf(NODE_BIN, [PNPM_BIN, '--version']) !== PNPM_VERSION) wanted.push(`pnpm@${PNPM_VERSION}`);
  if (wanted.length > 0) {
    say(`installing ${wanted.join(' and ')} into .tools/ (npm registry)`);
    const result = spawnSync(
      'npm',
      ['install', '--prefix', TOOLS, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', ...wanted],
      { stdio: 'inherit' },
    );
    if (result.status !== 0) {
      throw new Error(`npm could not install ${wanted.join(' and ')} (exit ${result.status ?? result.signal})`);
    }
  }
  const node = versionOf(NODE_BIN);
  if (node !== `v${NODE_VERSION}`) {
    throw new Error(`${NODE_BIN} reports ${node ?? 'nothing'}, not v${NODE_VERSION}`);
  }
  const pnpm = versionOf(NODE_BIN, [PNPM_BIN, '--version']);
  if (pnpm !== PNPM_VERSION) throw new Error(`pnpm reports ${pnpm ?? 'nothing'}, not ${PNPM_VERSION}`);
}

/** The environment of everything started under the project's Node. */
export function toolchainEnv(env = process.env) {
  return {
    ...env,
    PATH: `${BIN}${path.delimiter}${env.PATH ?? ''}`,
    // node-gyp builds native modules against this Node's headers, not the machine's.
    npm_config_nodedir: NODE_HOME,
  };
}

/**
 * Makes sure the calling script runs on the project's Node: when it does not, installs the
 * toolchain and runs the script again under it (signals passed on, its exit code returned).
 * Resolves when the script already runs on it.
 */
export async function useProjectNode() {
  if (process.version === `v${NODE_VERSION}` && process.env.PATH?.startsWith(BIN)) return;
  ensureToolchain();
  const child = spawn(NODE_BIN, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: toolchainEnv(),
  });
  // Ctrl-C reaches the child from the terminal (same process group): passing SIGINT on
  // would make it a second Ctrl-C. Signals sent to this process alone are passed on.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) =>
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (constants.signals[signal] ?? 0))),
  );
  process.exit(code);
}
