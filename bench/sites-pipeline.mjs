#!/usr/bin/env node
// Sites pipeline benchmark: N submitted sites scraped (loopback pages that answer after
// --page-delay ms) and tagged (loopback fake of the Anthropic Messages API, through the
// real SDK) by W worker processes started as production starts them
// (`node services/sites/dist/worker/main.js`), but with NODE_ENV=development (see the spawn).
// See README.md ("Sites pipeline").
// Usage, from the repository root, after
// `pnpm --filter @svc/safe-fetch --filter @svc/service-kit --filter @svc/types --filter @svc/sites build`:
//   flock /tmp/bench.lock node bench/sites-pipeline.mjs [--sites 1000] [--workers 2]
//     [--page-delay 100] [--ai-delay 100] [--concurrency 8] [--tag-concurrency 8] [--limit 60]
// Sites are inserted into a fresh PostgreSQL schema and queued with the API's own
// `enqueueScrape` (POST /api/sites is rate-limited to 5/min per IP, so 1,000 submissions
// cannot go through it from one client). Exit code 1 if the run exceeds --limit seconds,
// or any site ends untagged, failed, or without its two site_update events.
// Traffic stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs } from './lib/process-cpu.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SITES = path.join(ROOT, 'services/sites');
const requireSites = createRequire(path.join(SITES, 'package.json'));
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const HOST = '127.0.0.1';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((a, i, all) => (a.startsWith('--') ? [[a.slice(2), all[i + 1]]] : [])),
);
const N = Number(args.sites ?? 1000);
const WORKERS = Number(args.workers ?? 2);
const PAGE_DELAY_MS = Number(args['page-delay'] ?? 100);
const AI_DELAY_MS = Number(args['ai-delay'] ?? 100);
const CONCURRENCY = String(args.concurrency ?? 8);
const TAG_CONCURRENCY = String(args['tag-concurrency'] ?? 8);
const LIMIT_S = Number(args.limit ?? 60);

const kitTesting = await import(
  pathToFileURL(path.join(ROOT, 'packages/service-kit/dist/testing/index.js')).href
);
const kit = await import(pathToFileURL(path.join(ROOT, 'packages/service-kit/dist/index.js')).href);
const queuesMod = await import(pathToFileURL(path.join(SITES, 'dist/worker/queues.js')).href);
const { Redis } = requireSites('ioredis');
const pg = requireRoot('pg');

// ---------------------------------------------------------------- loopback fakes

const listen = (server) =>
  new Promise((resolve) => server.listen(0, HOST, () => resolve(server.address().port)));

/** N distinct pages (`/site/<i>`), each answering after PAGE_DELAY_MS. */
let pageRequests = 0;
const website = http.createServer((req, res) => {
  pageRequests++;
  const i = Number((req.url ?? '').split('/')[2] ?? 0);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Bench site ${i} — online JSON tool</title>` +
        `<meta name="description" content="Page ${i}: format and validate JSON, a developer tool.">` +
        `<link rel="icon" href="/favicon-${i}.png" sizes="32x32">` +
        `<meta property="og:image" content="/og-${i}.png"></head><body>${'<p>filler</p>'.repeat(200)}</body></html>`,
    );
  }, PAGE_DELAY_MS);
});

/** The Messages API: answers after AI_DELAY_MS with two tags and one unknown one. */
let aiRequests = 0;
const anthropic = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    aiRequests++;
    const { model } = JSON.parse(body);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_${aiRequests}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text: '["工具","技术","Developer tools"]' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 60, output_tokens: 12 },
        }),
      );
    }, AI_DELAY_MS);
  });
});

// ---------------------------------------------------------------- run

const sitePort = await listen(website);
const aiPort = await listen(anthropic);
const db = await kitTesting.createTestDatabase(path.join(SITES, 'prisma/migrations'));
const schema = db.target.schema;
const prefix = `bench:${randomBytes(4).toString('hex')}:`;
const redisUrl = kitTesting.TEST_REDIS_URL;
const pool = new pg.Pool({ connectionString: kitTesting.TEST_DATABASE_URL, max: 4 });

const workers = [];
const stopAll = async () => {
  for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
  await Promise.all(
    workers.map((w) => (w.exitCode === null ? new Promise((r) => w.once('exit', r)) : null)),
  );
};

try {
  // Worker processes, as production runs them.
  for (let i = 0; i < WORKERS; i++) {
    const port = await kitTesting.freePort();
    // BENCH_WORKER_NODE_ARGS: extra node flags for the workers, e.g. `--cpu-prof`.
    const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, path.join(SITES, 'dist/worker/main.js')], {
      cwd: SITES,
      env: {
        ...process.env,
        // Not production: the workers scrape the loopback pages above, which takes
        // OUTBOUND_ALLOW_HOSTS, refused at start in production (docs/decisions/013-operations-port.md).
        // NODE_ENV changes nothing else in the worker.
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        SITES_DATABASE_URL: db.url,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        OUTBOUND_ALLOW_HOSTS: `${HOST}:${sitePort}`,
        ANTHROPIC_API_KEY: 'bench-key',
        ANTHROPIC_BASE_URL: `http://${HOST}:${aiPort}`,
        SCRAPE_CONCURRENCY: CONCURRENCY,
        TAG_CONCURRENCY,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.port = port;
    workers.push(child);
  }
  for (const w of workers) await waitReady(w.port);

  // Sites as POST /api/sites stores them (title = host name, pending).
  const ids = Array.from({ length: N }, (_, i) => `bench${i}x${randomBytes(3).toString('hex')}`);
  for (let i = 0; i < N; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const values = chunk
      .map((_, j) => `($${j * 3 + 1}, $${j * 3 + 2}, $${j * 3 + 3}, '${HOST}')`)
      .join(',');
    await pool.query(
      `INSERT INTO "${schema}".sites (id, url, title, domain) VALUES ${values}`,
      chunk.flatMap((id, j) => [id, `http://${HOST}:${sitePort}/site/${i + j}`, HOST]),
    );
  }

  const events = { metadata: 0, tags: 0 };
  const sub = new Redis(redisUrl);
  await sub.subscribe(kit.eventsChannel(prefix));
  sub.on('message', (_c, msg) => {
    const { event, payload } = JSON.parse(msg);
    if (event !== 'site_update') return;
    if ('tags' in payload) events.tags++;
    else events.metadata++;
  });
  const queueRedis = kit.createRedis(redisUrl, kit.createLogger('bench', 'warn'), {
    name: 'bench',
    forQueues: true,
  });
  const queues = queuesMod.createQueues(queueRedis, prefix);

  // ---- the measured part: enqueue everything, wait for every site to be tagged
  const started = performance.now();
  for (let i = 0; i < N; i += 50) {
    await Promise.all(ids.slice(i, i + 50).map((id) => queuesMod.enqueueScrape(queues.scrape, id)));
  }
  const enqueuedMs = performance.now() - started;
  let scrapedMs;
  let taggedMs;
  const deadline = started + (LIMIT_S + 30) * 1000;
  while (performance.now() < deadline) {
    const { rows } = await pool.query(
      `SELECT count(*) FILTER (WHERE scrape_status <> 'pending')::int AS scraped,
              count(*) FILTER (WHERE cardinality(tags) > 0)::int AS tagged
         FROM "${schema}".sites`,
    );
    if (scrapedMs === undefined && rows[0].scraped === N) scrapedMs = performance.now() - started;
    if (rows[0].tagged === N) {
      taggedMs = performance.now() - started;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 300)); // last events in flight

  // Per-site latency: scrape job created → tag job finished.
  const [scrapeJobs, tagJobs] = await Promise.all([
    queues.scrape.getJobs(['completed'], 0, N),
    queues.tag.getJobs(['completed'], 0, N),
  ]);
  const createdAt = new Map(scrapeJobs.map((j) => [j.data.siteId, j.timestamp]));
  const latencies = tagJobs
    .map((j) => j.finishedOn - (createdAt.get(j.data.siteId) ?? j.finishedOn))
    .sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;

  // CPU time the worker processes spent (user + system, from /proc), per site.
  const workerCpuMs = workers.map((w) => cpuMs(w.pid) ?? NaN);

  const { rows: summary } = await pool.query(
    `SELECT scrape_status::text AS status, count(*)::int AS n,
            count(*) FILTER (WHERE tags = ARRAY['工具','技术']::text[])::int AS ai_tagged,
            count(*) FILTER (WHERE title LIKE 'Bench site %')::int AS titled
       FROM "${schema}".sites GROUP BY 1`,
  );
  const done = summary.find((r) => r.status === 'done') ?? { n: 0, ai_tagged: 0, titled: 0 };

  const result = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      load: os.loadavg(),
      node: process.version,
    },
    settings: {
      sites: N,
      workers: WORKERS,
      pageDelayMs: PAGE_DELAY_MS,
      aiDelayMs: AI_DELAY_MS,
      scrapeConcurrency: Number(CONCURRENCY),
      tagConcurrency: Number(TAG_CONCURRENCY),
    },
    enqueueSeconds: +(enqueuedMs / 1000).toFixed(2),
    allScrapedSeconds: scrapedMs && +(scrapedMs / 1000).toFixed(2),
    allTaggedSeconds: taggedMs && +(taggedMs / 1000).toFixed(2),
    sitesPerSecond: taggedMs && +(N / (taggedMs / 1000)).toFixed(1),
    latencyMs: { p50: pct(50), p95: pct(95), max: latencies.at(-1) },
    workerCpuMsPerSite: +(workerCpuMs.reduce((a, b) => a + b, 0) / N).toFixed(2),
    statuses: summary,
    done: done.n,
    withScrapedTitle: done.titled,
    withAiTags: done.ai_tagged,
    pageRequests,
    aiRequests,
    siteUpdateEvents: events,
  };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  const file = path.join(
    ROOT,
    `bench/results/sites-pipeline-${result.date.replace(/[:.]/g, '-')}.json`,
  );
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written ${path.relative(ROOT, file)}`);

  const ok =
    taggedMs !== undefined &&
    taggedMs / 1000 <= LIMIT_S &&
    done.n === N &&
    done.titled === N &&
    events.metadata === N &&
    events.tags === N;
  await Promise.all(Object.values(queues).map((q) => q.close()));
  queueRedis.disconnect();
  sub.disconnect();
  await stopAll();
  await kitTesting.clearRedisPrefix(prefix, redisUrl);
  process.exitCode = ok ? 0 : 1;
  if (!ok) console.error('FAILED: target not met (see above)');
} finally {
  await stopAll();
  await pool.end();
  await db.drop();
  website.close();
  anthropic.close();
}

async function waitReady(port) {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const ok = await fetch(`http://${HOST}:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`worker on :${port} never became ready`);
}
