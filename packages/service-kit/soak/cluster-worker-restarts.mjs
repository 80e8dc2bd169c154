// Soak: does a BullMQ Worker on a Redis Cluster keep fetching jobs after the master holding
// its queue is killed and restarted, again and again? Each round kills that master (SIGKILL),
// keeps it down 0.5-6.5 s, restarts it (same port, node file and data), queues a job and
// waits for the Worker to run it. A round whose job is not run within 45 s is a stall: the
// script prints where the Worker's blocking connection stands and the calls still pending
// on it, and exits 2.
//
// It finds two ioredis 6.0.0 promises that never settle, each parking a Worker for good
// (patched by patches/ioredis@6.0.0.patch; docs/decisions/022-ioredis-cluster-patch.md).
// On an idle machine a stall is rare: load the cores meanwhile (e.g. three
// `node -e 'for(;;){}'`).
//
// Usage (after `pnpm --filter @svc/service-kit build`; needs redis-server and redis-cli):
//   node packages/service-kit/soak/cluster-worker-restarts.mjs [rounds=40]
import { Queue, Worker } from 'bullmq';
import { createLogger, createRedis, queuePrefix } from '../dist/index.js';
import { startRedisCluster } from '../dist/testing/index.js';

const rounds = Number(process.argv[2] ?? 40);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const cluster = await startRedisCluster();
const redis = createRedis(cluster.url, createLogger('soak', 'silent'), { name: 'soak', forQueues: true });
const prefix = queuePrefix('soak:', redis);
// As the sites worker runs them: two Workers and a Queue on one connection.
const options = { connection: redis, prefix, concurrency: 8, lockDuration: 30_000, stalledInterval: 15_000 };
const done = new Set();
const worker = new Worker('scrape', async (job) => void done.add(job.id), options);
const tagWorker = new Worker('tag', async () => undefined, options);
const queue = new Queue('scrape', { connection: redis, prefix });
worker.on('error', () => {});
tagWorker.on('error', () => {});

// What happens to the Worker's blocking connection, kept for the round in progress.
const journal = [];
const pending = new Map();
await worker.waitUntilReady();
const blocking = await worker.backend.blockingConnection.client;
const where = () => `${blocking.status} [${blocking.nodes().map((n) => `${n.options.port}:${n.status}`).join(' ')}]`;
const note = (what) => journal.push(`${new Date().toISOString()} ${what} ${where()}`);
for (const event of ['connect', 'ready', 'close', 'reconnecting', 'end', '+node', '-node'])
  blocking.on(event, () => note(`event ${event}`));
let calls = 0;
const watch = (target, method, label) => {
  const original = target[method];
  target[method] = function (...args) {
    const id = ++calls;
    pending.set(id, { label, since: Date.now() });
    note(`start ${label}`);
    return Promise.resolve(original.apply(this, args)).finally(() => {
      pending.delete(id);
      note(`end ${label}`);
    });
  };
};
watch(worker.backend, 'waitForJob', 'backend.waitForJob');
watch(worker.backend, 'reconnectBlocking', 'backend.reconnectBlocking');
watch(worker.backend.blockingConnection, 'reconnect', 'connection.reconnect');
watch(worker.backend.blockingConnection, 'disconnect', 'connection.disconnect');

async function ran(id, ms) {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (done.has(id)) return true;
  return false;
}

let stalledIn;
await queue.add('s', {}, { jobId: 'warm-up' });
if (!(await ran('warm-up', 20_000))) throw new Error('the first job was not run');
for (let round = 0; round < rounds && stalledIn === undefined; round++) {
  journal.length = 0;
  const master = await cluster.nodeOf(`${prefix}:scrape:wait`);
  await cluster.stopNode(master, 'SIGKILL');
  await sleep(500 + Math.random() * 6000);
  await cluster.resumeNode(master);
  await cluster.waitForState('ok');
  const id = `job-${round}`;
  for (;;) {
    try {
      await queue.add('s', {}, { jobId: id });
      break;
    } catch {
      await sleep(200);
    }
  }
  const ok = await ran(id, 45_000);
  console.log(`round ${round}: ${ok ? 'ok' : 'STALL'}`);
  if (!ok) {
    stalledIn = round;
    console.log('pending:', [...pending.values()].map((p) => `${p.label} for ${Date.now() - p.since} ms`));
    console.log(journal.join('\n'));
  }
}
console.log(stalledIn === undefined ? `no stall in ${rounds} rounds` : `stalled in round ${stalledIn}`);
await Promise.allSettled([worker.close(true), tagWorker.close(true), queue.close()]);
redis.disconnect();
await cluster.close();
process.exit(stalledIn === undefined ? 0 : 2);
