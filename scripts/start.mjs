// `npm start`: installs what is needed (pnpm included), builds, applies migrations,
// starts the gateway, every service, the web client and the sites worker under the
// supervisor, waits until all are ready and prints the URL of the home page. A process that
// exits is restarted (supervisor.mjs); Ctrl-C stops everything.
import path from 'node:path';
import { ROOT, ensureDependencies, installDependencies, log, migrate, run } from './lib.mjs';
import { supervise } from './supervisor.mjs';
import { useProjectNode } from './toolchain.mjs';

await useProjectNode();

const GATEWAY_PORT = Number(process.env.PORT ?? 8080);
const PROCESSES = [
  { name: 'auth', dir: 'services/auth', entry: 'dist/main.js', port: 4001 },
  { name: 'app-store', dir: 'services/app-store', entry: 'dist/main.js', port: 4002 },
  { name: 'sites', dir: 'services/sites', entry: 'dist/main.js', port: 4003 },
  { name: 'sites-worker', dir: 'services/sites', entry: 'dist/worker/main.js', port: 4013 },
  { name: 'chat', dir: 'services/chat', entry: 'dist/main.js', port: 4004 },
  { name: 'translate', dir: 'services/translate', entry: 'dist/main.js', port: 4005 },
  { name: 'realtime', dir: 'services/realtime', entry: 'dist/main.js', port: 4006 },
  // The server-rendered pages (it also needs services/web/build from its build).
  { name: 'web', dir: 'services/web', entry: 'dist/main.js', port: 4007 },
  // The MCP server at /mcp: calls the services above on loopback, which they trust.
  { name: 'mcp', dir: 'services/mcp', entry: 'dist/main.js', port: 4008 },
  { name: 'gateway', dir: 'gateway', entry: 'dist/main.js', port: GATEWAY_PORT },
];
/** Settings of one process beyond the shared environment (which wins when it sets them). */
const OWN_ENV = {
  // web calls the API through the gateway: follow the gateway's port.
  web: { API_BASE_URL: `http://127.0.0.1:${GATEWAY_PORT}`, PUBLIC_BASE_URL: `http://localhost:${GATEWAY_PORT}` },
  // web passes each reader's address on (X-Forwarded-For) from loopback; without this every
  // page's API calls would count against one client's limits. On one machine, a reader on
  // loopback is this machine's own user.
  gateway: { TRUST_PROXY: 'loopback' },
};

/** The private ops listener (/metrics, /readyz): PORT + 1000, as each process defaults it. */
const opsPort = (p) => p.port + 1000;

log(`running on Node ${process.version} (.tools/, scripts/toolchain.mjs)`);
installDependencies();
await ensureDependencies();
log('building (turbo run build)');
run('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only'], { env: { TURBO_TELEMETRY_DISABLED: '1' } });
migrate();

log('starting every process');
const supervisor = supervise(
  PROCESSES.map((p) => ({
    name: p.name,
    args: [p.entry],
    cwd: path.join(ROOT, p.dir),
    env: { NODE_ENV: 'development', ...OWN_ENV[p.name], ...process.env, PORT: String(p.port), OPS_PORT: String(opsPort(p)) },
    // The detailed readiness is on each process's private ops listener (docs/decisions/013-operations-port.md);
    // the gateway's public port has no /readyz.
    readyUrl: `http://127.0.0.1:${opsPort(p)}/readyz`,
  })),
);

if (await supervisor.waitUntilReady(60_000)) {
  const gateway = PROCESSES.find((p) => p.name === 'gateway');
  log(`all ${PROCESSES.length} processes are ready`);
  log(`the API is at http://localhost:${gateway.port}/api  (Node ${process.version}; Ctrl-C stops everything)`);
  log(`open http://localhost:${gateway.port}/ in a browser`);
  log(`metrics and readiness: http://127.0.0.1:${opsPort(gateway)}/metrics, /readyz (ops ports = port + 1000)`);
}
