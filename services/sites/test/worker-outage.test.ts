// PostgreSQL goes away while jobs are queued: the worker's attempts fail, BullMQ retries
// them with backoff, and once PostgreSQL is back the sites are scraped and tagged, with
// nothing lost and no restart.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPgAdapter } from '@svc/service-kit';
import { startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';
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

let env: WorkerEnv;
let web: FakeWebsite;
let proxy: TcpProxy;
let workerDb: PrismaClient;

beforeAll(async () => {
  env = await createWorkerEnv();
  web = await startFakeWebsite({ '/page': htmlPage('<title>Survived the outage</title>') });
  proxy = await startTcpProxy(env.databaseTarget.port);
  // The Workers reach PostgreSQL through the cuttable proxy; the test reads it directly.
  workerDb = new PrismaClient({
    adapter: createPgAdapter(
      { ...env.databaseTarget, host: '127.0.0.1', port: proxy.port },
      { max: 4 },
    ),
  });
  env.startWorkers({ OUTBOUND_ALLOW_HOSTS: web.host }, { db: workerDb });
});

afterAll(async () => {
  await env?.close();
  await workerDb?.$disconnect();
  await proxy?.close();
  await web?.close();
});

describe('PostgreSQL outage in the worker', () => {
  it('failed attempts are retried with backoff and complete once PostgreSQL is back', async () => {
    const ids = [await env.insertSite(web.url('/page')), await env.insertSite(web.url('/page?2'))];
    await proxy.cut();
    for (const id of ids) await enqueueScrape(env.queues[SCRAPE_QUEUE], id);

    // At least one attempt has failed and the job waits for its retry.
    await waitFor(
      async () => {
        const job = await env.queues[SCRAPE_QUEUE].getJob(scrapeJobId(ids[0]!));
        return (job?.attemptsMade ?? 0) >= 1;
      },
      20_000,
      'a failed attempt',
    );
    expect(await env.queues[SCRAPE_QUEUE].getJobState(scrapeJobId(ids[0]!))).toMatch(
      /delayed|waiting|active/,
    );

    await proxy.restore();
    for (const id of ids) {
      const site = await waitForTagged(env.db, id, 30_000);
      expect(site).toMatchObject({ title: 'Survived the outage', scrapeStatus: 'done' });
    }
  }, 60_000);
});
