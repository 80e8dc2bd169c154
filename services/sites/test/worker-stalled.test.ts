// Worker processes as production runs them (src/worker/main.ts in its own process): a
// worker killed with SIGKILL in the middle of a scrape loses its job lock, and another
// worker process picks the job up (BullMQ stalled-job recovery) and completes it. Also:
// SIGTERM shuts a worker down cleanly, and a worker whose Redis connections go half-open
// while a job waits exits 1 (its watchdog), for another process to complete the job.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  TEST_REDIS_URL,
  spawnService,
  startTcpProxy,
  waitForOk,
  type ServiceProcess,
} from '@svc/service-kit/testing';
import { SCRAPE_QUEUE, enqueueScrape, scrapeJobId } from '../src/worker/queues.js';
import {
  createWorkerEnv,
  htmlPage,
  startFakeWebsite,
  waitFor,
  waitForTagged,
  type FakeWebsite,
  type WorkerEnv,
} from './worker-harness.js';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

let env: WorkerEnv;
let web: FakeWebsite;
const running: ServiceProcess[] = [];
let slowRequests = 0;

beforeAll(async () => {
  env = await createWorkerEnv();
  web = await startFakeWebsite({ '/ok': htmlPage('<title>Fine</title>') });
  // The first request hangs (its worker will be killed meanwhile); later ones answer.
  web.route('/slow', (req, res) => {
    slowRequests++;
    if (slowRequests === 1) return;
    htmlPage('<html><head><title>Finally scraped</title></head></html>')(req, res);
  });
});

afterAll(async () => {
  for (const proc of running)
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await env?.close();
  await web?.close();
});

async function startWorker(extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
  const proc = await spawnService({
    cwd: SERVICE_ROOT,
    source: true,
    entry: 'src/worker/main.ts',
    env: {
      SITES_DATABASE_URL: env.databaseUrl,
      REDIS_PREFIX: env.prefix,
      OUTBOUND_ALLOW_HOSTS: web.host,
      ANTHROPIC_API_KEY: '',
      SCRAPE_TIMEOUT_MS: '60000',
      WORKER_LOCK_DURATION_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      ...extraEnv,
    },
  });
  running.push(proc);
  await waitForOk(proc, '/readyz');
  return proc;
}

describe('worker processes', () => {
  it('a job whose worker is SIGKILLed mid-scrape completes on another worker', async () => {
    const first = await startWorker();
    const id = await env.insertSite(web.url('/slow'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    await waitFor(async () => slowRequests >= 1, 20_000, 'the first worker to fetch the page');
    expect(await env.queues[SCRAPE_QUEUE].getJobState(scrapeJobId(id))).toBe('active');

    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect((await env.db.site.findUniqueOrThrow({ where: { id } })).scrapeStatus).toBe('pending');

    const second = await startWorker();
    const site = await waitForTagged(env.db, id, 30_000);
    expect(site).toMatchObject({ title: 'Finally scraped', scrapeStatus: 'done' });
    expect(site.tags.length).toBeGreaterThanOrEqual(1);
    expect(slowRequests).toBe(2);
    expect(await env.queues[SCRAPE_QUEUE].getJobState(scrapeJobId(id))).toBe('completed');

    // Graceful shutdown: SIGTERM closes the Workers and exits 0.
    expect(await second.stop(15_000)).toBe(0);
  }, 90_000);

  it('a worker whose Redis connections go half-open exits 1, and another completes its job', async () => {
    const proxy = await startTcpProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
    try {
      const stuck = await startWorker({
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        WORKER_STUCK_AFTER_MS: '1500',
        SHUTDOWN_TIMEOUT_MS: '3000',
      });
      web.route('/before', htmlPage('<title>Before</title>'));
      web.route('/after', htmlPage('<title>After</title>'));
      const before = await env.insertSite(web.url('/before'));
      await enqueueScrape(env.queues[SCRAPE_QUEUE], before);
      await waitForTagged(env.db, before, 20_000);

      // Every connection the process has stops answering; new ones would work.
      proxy.stallOpen();
      const id = await env.insertSite(web.url('/after'));
      await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        stuck.exited,
        new Promise<'running'>((r) => (timer = setTimeout(() => r('running'), 30_000))),
      ]);
      clearTimeout(timer);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(stuck.output()).toContain('job worker stuck');
      expect(await env.queues[SCRAPE_QUEUE].getJobState(scrapeJobId(id))).toBe('waiting');

      const fresh = await startWorker();
      const site = await waitForTagged(env.db, id, 30_000);
      expect(site).toMatchObject({ title: 'After', scrapeStatus: 'done' });
      expect(await fresh.stop(15_000)).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});
