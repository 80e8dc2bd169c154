// The worker process exits on the first SIGTERM, within SHUTDOWN_TIMEOUT_MS, whatever its
// PostgreSQL and Redis connections went through: after both were cut and restored under it
// (a restart of each), and with Redis down at the moment of the signal. Both servers are
// reached through cuttable TCP proxies; the real ones, shared with other suites, stay up.
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { databaseTargetToUrl } from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  spawnService,
  startTcpProxy,
  waitForOk,
  type ServiceProcess,
  type TcpProxy,
} from '@svc/service-kit/testing';
import { SCRAPE_QUEUE, enqueueScrape } from '../src/worker/queues.js';
import {
  createWorkerEnv,
  htmlPage,
  startFakeWebsite,
  waitForTagged,
  type FakeWebsite,
  type WorkerEnv,
} from './worker-harness.js';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHUTDOWN_TIMEOUT_MS = 3000;
/** The graceful stop fits in the timeout; the kit's hard deadline (exit 1) is 1 s later. */
const EXIT_WITHIN_MS = SHUTDOWN_TIMEOUT_MS + 1000;

let env: WorkerEnv;
let web: FakeWebsite;
let pg: TcpProxy;
let redis: TcpProxy;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  env = await createWorkerEnv();
  web = await startFakeWebsite({
    '/page': htmlPage('<title>Under load</title>'),
    // Still being fetched when the servers go away: jobs are running at the cut.
    '/slow': (req, res) => {
      setTimeout(() => htmlPage('<title>Slow</title>')(req, res), 1500);
    },
  });
});

afterEach(async () => {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null)
    worker.child.kill('SIGKILL');
  worker = undefined;
  await pg?.close();
  await redis?.close();
});

afterAll(async () => {
  await env?.close();
  await web?.close();
});

/** The worker process, its PostgreSQL and Redis through fresh proxies, ready. */
async function startWorker(): Promise<ServiceProcess> {
  pg = await startTcpProxy(env.databaseTarget.port, env.databaseTarget.host);
  redis = await startTcpProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
  const proc = await spawnService({
    cwd: SERVICE_ROOT,
    source: true,
    entry: 'src/worker/main.ts',
    env: {
      SITES_DATABASE_URL: databaseTargetToUrl({
        ...env.databaseTarget,
        host: '127.0.0.1',
        port: pg.port,
      }),
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      REDIS_PREFIX: env.prefix,
      OUTBOUND_ALLOW_HOSTS: web.host,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      WORKER_LOCK_DURATION_MS: '5000',
      WORKER_STALLED_INTERVAL_MS: '5000',
      LOG_LEVEL: 'info',
    },
  });
  worker = proc;
  await waitForOk(proc, '/readyz', 40_000);
  return proc;
}

/** Queues `n` sites and waits until the worker has scraped and tagged them all. */
async function putThrough(n: number, tag: string): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await env.insertSite(web.url(`/page?${tag}-${i}`)));
  for (const id of ids) await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
  for (const id of ids) await waitForTagged(env.db, id, 30_000);
}

/** One SIGTERM; resolves with the exit code and how long the exit took. */
async function terminate(proc: ServiceProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  proc.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    proc.exited,
    new Promise<undefined>(
      (r) => (timer = setTimeout(() => r(undefined), EXIT_WITHIN_MS + 10_000)),
    ),
  ]);
  clearTimeout(timer);
  if (!exit)
    throw new Error(
      `still running ${EXIT_WITHIN_MS + 10_000} ms after one SIGTERM:\n${proc.output()}`,
    );
  return { code: exit.code, ms: Date.now() - started };
}

describe('sites worker shutdown', () => {
  it('exits on one SIGTERM within its timeout as PostgreSQL and Redis come back from a restart under load', async () => {
    const proc = await startWorker();
    await putThrough(6, 'before');
    for (let i = 0; i < 12; i++)
      await enqueueScrape(env.queues[SCRAPE_QUEUE], await env.insertSite(web.url(`/slow?${i}`)));
    await new Promise((r) => setTimeout(r, 500));

    await Promise.all([pg.cut(), redis.cut()]);
    // Long enough for the Redis clients to be waiting between reconnect attempts.
    await new Promise((r) => setTimeout(r, 3000));
    await Promise.all([pg.restore(), redis.restore()]);
    const { code, ms } = await terminate(proc);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_WITHIN_MS);
  }, 120_000);

  it('exits on one SIGTERM within its timeout with Redis down at that moment', async () => {
    const proc = await startWorker();
    await putThrough(3, 'down');

    await redis.cut();
    await new Promise((r) => setTimeout(r, 1000));
    const { code, ms } = await terminate(proc);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_WITHIN_MS);
  }, 120_000);
});
