// One stack of the growth benchmark (bench/growth.mjs): the BUILT sites, app-store, chat,
// web and gateway processes (`node dist/main.js`, NODE_ENV=production, as deployed) on one
// size's schemas, on free loopback ports, with a Redis prefix of their own. Two stacks (the
// small and the large data) run side by side and are loaded in turn.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST, freePort, waitFor } from './processes.mjs';
import { productionSettings } from './production.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const JWT_PUBLIC_KEY = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/**
 * Starts a stack. `schemas`: { sites, apps, messages } schema names in `databaseUrl`'s
 * database; `env`: settings given to every process (the cache switches). Resolves once every
 * process answers; `stop()` ends them (SIGTERM) and waits.
 */
export async function startStack({ name, databaseUrl, redisUrl, schemas, env, webBuildDir }) {
  const ports = {};
  for (const p of ['sites', 'appStore', 'chat', 'web', 'gateway']) {
    ports[p] = await freePort();
    ports[`${p}Ops`] = await freePort();
  }
  if (new Set(Object.values(ports)).size !== Object.keys(ports).length) throw new Error('port collision, run again');
  const url = (p) => `http://${HOST}:${p}`;
  const origin = url(ports.gateway);
  const production = productionSettings({ publicBaseUrl: origin });
  const redisPrefix = `bench:growth:${name}:${randomBytes(4).toString('hex')}:`;
  const children = new Map();
  const start = (proc, entry, own) => {
    const child = spawn(process.execPath, [entry], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: redisPrefix,
        DATABASE_URL: databaseUrl,
        JWT_PUBLIC_KEY,
        ...production,
        ...env,
        ...own,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.set(proc, child);
    return child;
  };
  const db = (schema) => `${databaseUrl}?schema=${schema}`;
  start('sites', 'services/sites/dist/main.js', {
    PORT: String(ports.sites),
    OPS_PORT: String(ports.sitesOps),
    SITES_DATABASE_URL: db(schemas.sites),
    // The image of the day is not measured: a closed port, never a call outside.
    DAILY_BG_SOURCE_URL: `http://${HOST}:9/HPImageArchive.aspx`,
  });
  start('app-store', 'services/app-store/dist/main.js', {
    PORT: String(ports.appStore),
    OPS_PORT: String(ports.appStoreOps),
    APP_STORE_DATABASE_URL: db(schemas.apps),
  });
  start('chat', 'services/chat/dist/main.js', {
    PORT: String(ports.chat),
    OPS_PORT: String(ports.chatOps),
    CHAT_DATABASE_URL: db(schemas.messages),
    // The seeded history spans 29 days and is kept between runs: it must not age out into a
    // retention sweep in the middle of a run.
    CHAT_RETENTION_DAYS: '3650',
  });
  start('gateway', 'gateway/dist/main.js', {
    PORT: String(ports.gateway),
    OPS_PORT: String(ports.gatewayOps),
    TRUST_PROXY: 'loopback',
    AUTH_URL: `http://${HOST}:9`,
    APP_STORE_URL: url(ports.appStore),
    SITES_URL: url(ports.sites),
    CHAT_URL: url(ports.chat),
    REALTIME_URL: `http://${HOST}:9`,
    TRANSLATE_URL: `http://${HOST}:9`,
    MCP_URL: `http://${HOST}:9`,
    WEB_URL: url(ports.web),
  });
  start('web', 'services/web/dist/main.js', {
    PORT: String(ports.web),
    OPS_PORT: String(ports.webOps),
    ...(webBuildDir && { WEB_BUILD_DIR: webBuildDir }),
  });
  const stop = async () => {
    for (const c of children.values()) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(
      [...children.values()].map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
  };
  try {
    for (const [proc, port] of [
      ['sites', ports.sites],
      ['app-store', ports.appStore],
      ['chat', ports.chat],
      ['web', ports.web],
    ]) {
      await waitFor(`${url(port)}/readyz`, children.get(proc), `${name} ${proc}`, { attempts: 600 });
    }
    await waitFor(`${origin}/healthz`, children.get('gateway'), `${name} gateway`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, origin, ports, redisPrefix, pids: () => Object.fromEntries([...children].map(([n, c]) => [n, c.pid])), stop };
}
