#!/usr/bin/env node
// Growth benchmark (README.md, "Growth"; bench/growth.md): ten times the data, the same
// speed. Sites, apps and chat messages are seeded at two sizes (by default 100k and 1M
// sites, 100k and 1M apps, 1M and 10M messages), each size in its own schemas of one
// database (bench/lib/growth-seed.mjs), kept between runs. Two stacks of the BUILT services
// (sites, app-store, chat, web, gateway; bench/lib/growth-stack.mjs) run side by side, one
// per size, and every case is loaded through its stack's gateway on one stack then the
// other (the order swapped each round), so both sizes see the same machine at the same
// moments. Two phases: every cache off, then the caches as deployed.
//
// Usage, from the repository root, after `pnpm turbo run build` (wrap in `flock /tmp/bench.lock`):
//   node bench/growth.mjs [--sizes 100k,1m] [--reseed] [--duration 5] [--warmup 1]
//        [--rounds 2] [--connections 4] [--phases off,defaults] [--cases hot,recent,…]
//        [--seed-only] [--no-explain]
// GROWTH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/svc_growth), REDIS_URL.
//
// Targets (exit code 1 when missed), caches off: every API case p99 < 50 ms at the large
// size; every case (the web page included, judged by its ratio alone) at most 2× its
// small-size p99; no failed request.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KINDS, SEED_VERSION, migrateKept, searchTerms, seed, seedState } from './lib/growth-seed.mjs';
import { ensureDatabase } from './lib/database.mjs';
import { startStack } from './lib/growth-stack.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireGw = createRequire(path.join(ROOT, 'gateway', 'package.json'));
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const autocannon = requireGw('autocannon');
const pgModule = requireRoot('pg');

const DATABASE_URL = process.env.GROWTH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_growth';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const P99_LIMIT_MS = 50;
const RATIO_LIMIT = 2;

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : argv[i + 1];
};
const flag = (name) => argv.includes(`--${name}`);
const num = (name, fallback) => Number(opt(name, fallback));

/** `100k` → 100000, `1m` → 1000000; the label back. */
const parseSize = (s) => Math.round(Number.parseFloat(s) * ({ k: 1e3, m: 1e6 }[s.slice(-1).toLowerCase()] ?? 1));
const label = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}m` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n));
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const r1 = (x) => Math.round(x * 10) / 10;

/**
 * Every cache a read of these cases can be served from, and its switch. Off: each set to 0.
 * Defaults: none set (the deployed values).
 */
const CACHE_SWITCHES = [
  { setting: 'SITES_LIST_CACHE_MS', what: 'sites: GET /api/sites pages, in process', deployed: '5000' },
  { setting: 'SITES_COUNT_CACHE_MS', what: 'sites: GET /api/sites match counts, in process', deployed: '30000' },
  { setting: 'SITEMAP_CACHE_MS', what: 'sites: rendered sitemap files, in process', deployed: '600000' },
  { setting: 'APP_STORE_LISTING_CACHE_MS', what: 'app-store: GET /api/v1/apps answers, in process', deployed: '1000' },
  { setting: 'APP_STORE_TOTALS_CACHE_MS', what: 'app-store: listing totals, in Redis', deployed: '10000' },
  { setting: 'WEB_PAGE_CACHE_MS', what: 'web: pages for readers without a session, in process', deployed: '2000' },
];

// ---------------------------------------------------------------- data

/** Seeds what is missing (or everything with --reseed), migrates what is kept; returns what each schema holds. */
async function prepareData(pg, sizes) {
  const out = [];
  for (const [n, size] of sizes.entries()) {
    for (const kind of Object.keys(KINDS)) {
      const rows = kind === 'messages' ? size * 10 : size;
      const schema = `growth_${kind}_${label(rows)}`;
      const state = await seedState(pg, schema);
      const fresh = flag('reseed') || !state || state.kind !== kind || Number(state.rows) !== rows || state.version !== SEED_VERSION;
      let seconds;
      let migrated = [];
      if (fresh) {
        process.stdout.write(`seeding ${rows} ${kind} into ${schema} … `);
        seconds = await seed(pg, schema, kind, rows);
        console.log(`${seconds.toFixed(1)} s`);
      } else {
        seconds = Number(state.seconds);
        migrated = await migrateKept(pg, schema, kind);
        console.log(
          `${schema}: ${rows} ${kind} kept (seeded ${new Date(state.seeded_at).toISOString().slice(0, 16)} in ${seconds.toFixed(1)} s)` +
            migrated.map((m) => `; applied ${m.name} in ${m.seconds.toFixed(1)} s`).join(''),
        );
      }
      const onDisk = (await pg.query(`SELECT pg_size_pretty(pg_total_relation_size('${schema}.${KINDS[kind].table}')) AS s`)).rows[0].s;
      out.push({ size: n === 0 ? 'small' : 'large', kind, rows, schema, seededNow: fresh, seedSeconds: seconds, migrated, onDisk });
    }
  }
  return out;
}

/** Per size: how many rows each searched term matches, and the ids the cases use. */
async function dataFacts(pg, schemas, terms) {
  await pg.query(`SET search_path TO ${schemas.sites}`);
  const s = (
    await pg.query(
      `SELECT count(*) FILTER (WHERE hidden_at IS NULL)::int AS visible,
              count(*) FILTER (WHERE hidden_at IS NULL AND search_document @@ svc_search_query($1))::int AS common,
              count(*) FILTER (WHERE hidden_at IS NULL AND search_document @@ svc_search_query($2))::int AS rare,
              count(*) FILTER (WHERE hidden_at IS NULL AND search_document @@ svc_search_query($3))::int AS chinese,
              count(*) FILTER (WHERE hidden_at IS NULL AND tags @> ARRAY['技术'])::int AS tag
       FROM sites`,
      [terms.common, terms.rare, terms.chinese],
    )
  ).rows[0];
  // The site page measured: the 1,000th hottest (a page readers reach, not the very first).
  const site = (await pg.query(`SELECT id FROM sites WHERE hidden_at IS NULL ORDER BY hot_score DESC, id LIMIT 1 OFFSET ${Math.min(999, Math.floor(s.visible / 2))}`)).rows[0].id;
  await pg.query(`SET search_path TO ${schemas.apps}`);
  const a = (
    await pg.query(
      `SELECT count(*) FILTER (WHERE status = 'approved')::int AS approved,
              count(*) FILTER (WHERE status = 'approved' AND search_document @@ svc_search_query($1))::int AS q
       FROM apps`,
      [terms.common],
    )
  ).rows[0];
  return { sites: s, siteId: site, apps: a };
}

// ---------------------------------------------------------------- plans

/** EXPLAIN (ANALYZE, BUFFERS) of the SQL the services run, built by their own dist modules. */
async function explainPlans(pg, schemas, terms) {
  const sites = await import(pathToFileURL(path.join(ROOT, 'services/sites/dist/domain/site-list-query.js')).href);
  const apps = await import(pathToFileURL(path.join(ROOT, 'services/app-store/dist/domain/listing-query.js')).href);
  const page = ({ page: n = 1, ...f }) => sites.siteListPageQuery({ sort: 'hot', start: { offset: (n - 1) * 60 }, ...f });
  const where = (f) => sites.siteListWhere(f);
  const estimate = (f) => ({ sql: `SELECT 1 FROM sites s WHERE ${where(f).sql}`, params: where(f).params, explainOnly: true });
  const capped = (f) => {
    const w = where(f);
    return { sql: `SELECT count(*)::int AS total FROM (SELECT 1 FROM sites s WHERE ${w.sql} LIMIT $${w.params.length + 1}) m`, params: [...w.params, 1001] };
  };
  const appsWhere = apps.listingWhere({ q: terms.common });
  const queries = [
    ['sites', 'hot, page 1', page({})],
    ['sites', 'recent, page 1', page({ sort: 'recent' })],
    ['sites', 'tag=技术, page 1', page({ tag: '技术' })],
    ['sites', `search=${terms.common} (common), page 1`, page({ search: terms.common })],
    ['sites', `search=${terms.rare} (rare), page 1`, page({ search: terms.rare })],
    ['sites', `search=${terms.chinese} (2 characters), page 1`, page({ search: terms.chinese })],
    ['sites', 'hot, page 100', page({ page: 100 })],
    ['sites', 'exact count, no filter (before: every request)', sites.siteListCountQuery?.({}) ?? { sql: `SELECT count(*)::int FROM sites s WHERE ${where({}).sql}`, params: [] }],
    ['sites', 'total estimate, no filter (EXPLAIN only)', estimate({})],
    ['sites', `total estimate, search=${terms.common} (EXPLAIN only)`, estimate({ search: terms.common })],
    ['sites', `capped count, search=${terms.rare}`, capped({ search: terms.rare })],
    ['sites', 'sitemap file (1 of 128 hash ranges)', {
      sql: `SELECT s.id, s.last_activity_at FROM sites s WHERE s.hidden_at IS NULL AND hashtext(s.id) >= $1::int8 AND hashtext(s.id) < $2::int8 ORDER BY hashtext(s.id), s.id LIMIT 49999`,
      params: [0, 2 ** 32 / 128],
    }],
    ['apps', `q=${terms.common}, first page`, apps.listingPageQuery({ q: terms.common }, 51, 0)],
    ['apps', 'no filter, offset 10,000', apps.listingPageQuery({}, 51, 10_000)],
    ['apps', `exact count, q=${terms.common} (before: every request past the Redis cache)`, apps.listingCountQuery({ q: terms.common })],
    ['apps', `total estimate, q=${terms.common} (EXPLAIN only)`, { sql: `SELECT 1 FROM apps WHERE ${appsWhere.sql}`, params: appsWhere.params, explainOnly: true }],
    [
      'messages',
      'GET /api/messages (Prisma: newest 50 undeleted)',
      {
        sql: 'SELECT * FROM messages WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 50',
        params: [],
      },
    ],
    // One user's rows, as their data export reads them and their account deletion changes
    // them: a sender of the seed's 50,000 (200 messages at 10M), an author of its 20,000 (50
    // apps at 1M); the seed owns no site, so the sites' plans show the lookup alone.
    ['messages', 'one user\'s messages (export, deletion)', {
      sql: 'SELECT * FROM messages WHERE sender_user_id = $1 ORDER BY created_at, id',
      params: ['u4'],
    }],
    ['sites', 'one user\'s owned sites (export, deletion)', { sql: 'SELECT id FROM sites WHERE owner_id = $1', params: ['u0'] }],
    ['sites', 'one user\'s submitted sites (deletion)', { sql: 'SELECT id FROM sites WHERE submitted_by = $1', params: ['u0'] }],
    ['apps', 'one author\'s apps (export, deletion)', {
      sql: 'SELECT id FROM apps WHERE author_id = $1 ORDER BY created_at, id',
      params: ['author-0'],
    }],
  ];
  const out = [];
  for (const [kind, name, q] of queries) {
    await pg.query(`SET search_path TO ${schemas[kind]}`);
    const t0 = performance.now();
    const { rows } = await pg.query(`EXPLAIN ${q.explainOnly ? '' : '(ANALYZE, BUFFERS) '}${q.sql}`, q.params);
    const planMs = performance.now() - t0;
    const plan = rows.map((r) => r['QUERY PLAN']);
    // EXPLAIN alone: what the total costs is the planning, timed from here.
    const ms = q.explainOnly ? +planMs.toFixed(3) : Number(/Execution Time: ([0-9.]+) ms/.exec(plan.at(-1))?.[1]);
    out.push({ kind, name, ms, sql: q.sql, params: q.params, plan });
  }
  return out;
}

// ---------------------------------------------------------------- load

/** 198.18.0.0/15 (RFC 2544, benchmarking): each request its own reader, 131,072 in turn. */
let readerSeq = 0;
const nextReader = () => {
  const n = readerSeq++ & 0x1ffff;
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
};

const JSON_HEADERS = { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' };
const PAGE_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.9',
};

/** The cases: `api` ones are held to p99 < 50 ms at the large size, all but the floor to the ratio. */
function casesFor(terms) {
  const q = encodeURIComponent;
  return [
    // The floor: a fixed answer through the same gateway and service, what the machine's
    // load alone does to a p99 at that moment (not a target).
    { name: 'floor', api: false, path: () => '/api/sites/tags' },
    { name: 'hot', api: true, path: () => '/api/sites' },
    { name: 'recent', api: true, path: () => '/api/sites?sort=recent' },
    { name: 'tag', api: true, path: () => `/api/sites?tag=${q('技术')}` },
    { name: 'search common', api: true, path: () => `/api/sites?search=${q(terms.common)}` },
    { name: 'search rare', api: true, path: () => `/api/sites?search=${q(terms.rare)}` },
    { name: 'search chinese', api: true, path: () => `/api/sites?search=${q(terms.chinese)}` },
    { name: 'page 100', api: true, path: () => '/api/sites?page=100' },
    { name: 'cursor 100', api: true, path: (_f, live) => live.cursor100 && `/api/sites?cursor=${live.cursor100}` },
    { name: 'apps q', api: true, path: () => `/api/v1/apps?q=${q(terms.common)}` },
    { name: 'messages', api: true, path: () => '/api/messages' },
    {
      name: 'message post',
      api: true,
      path: () => '/api/messages',
      method: 'POST',
      body: () => JSON.stringify({ content: `growth bench ${readerSeq}` }),
    },
    { name: 'sitemap', api: true, path: () => '/sitemap.xml', headers: { 'accept-encoding': 'gzip' } },
    // One file of the index (its middle one): thousands of URLs, judged by its ratio alone.
    { name: 'sitemap file', api: false, path: (_f, live) => live.sitemapFile, headers: { 'accept-encoding': 'gzip' } },
    { name: 'site page', api: false, path: (facts) => `/site/${q(facts.siteId)}`, headers: PAGE_HEADERS },
  ];
}

/** What a stack answers that a case needs: page 100's cursor (page 99's next_cursor), a sitemap file. */
async function liveFacts(origin) {
  const p99 = await (await fetch(`${origin}/api/sites?page=99`)).json();
  const index = await (await fetch(`${origin}/sitemap.xml`)).text();
  const files = [...index.matchAll(/<sitemap><loc>[^<]*(\/sitemap-\d+\.xml)<\/loc>/g)].map((m) => m[1]);
  return { cursor100: p99.next_cursor ?? null, sitemapFile: files[Math.floor(files.length / 2)] ?? null, sitemapFiles: files.length };
}

async function measure(origin, c, facts, live, { connections, duration }) {
  const r = await autocannon({
    url: `${origin}${c.path(facts, live)}`,
    connections,
    duration,
    method: c.method ?? 'GET',
    headers: { ...(c.headers ?? JSON_HEADERS), ...(c.body && { 'content-type': 'application/json' }) },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, 'x-forwarded-for': nextReader() },
          ...(c.body && { body: c.body() }),
        }),
      },
    ],
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bytesPerReq: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
    failures: r.non2xx + r.errors + r.timeouts,
    statusCodes: r.statusCodeStats,
  };
}

async function runPhase(phase, stacks, cases, facts, live, load) {
  console.log(`\nphase "${phase}": ${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s per case and size, ${load.rounds} round(s)`);
  const runs = [];
  for (let round = 1; round <= load.rounds; round++) {
    const order = round % 2 === 1 ? ['small', 'large'] : ['large', 'small'];
    for (const c of cases) {
      for (const size of order) {
        const stack = stacks[size];
        if (load.warmup > 0) await measure(stack.origin, c, facts[size], live[size], { ...load, duration: load.warmup });
        const m = await measure(stack.origin, c, facts[size], live[size], load);
        runs.push({ phase, round, case: c.name, size, ...m });
        console.log(
          `  r${round} ${c.name.padEnd(15)} ${size.padEnd(5)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  ${m.bytesPerReq} B/req` +
            (m.failures ? `  FAILED ${m.failures} ${JSON.stringify(m.statusCodes)}` : ''),
        );
      }
    }
  }
  return cases.map((c) => {
    const per = (size) => {
      const rs = runs.filter((x) => x.case === c.name && x.size === size);
      return {
        rps: Math.round(mean(rs.map((x) => x.rps))),
        p50: r1(mean(rs.map((x) => x.p50))),
        p99: r1(mean(rs.map((x) => x.p99))),
        failures: rs.reduce((a, x) => a + x.failures, 0),
        bytesPerReq: rs[0]?.bytesPerReq,
      };
    };
    const small = per('small');
    const large = per('large');
    const ratio = { p50: +(large.p50 / (small.p50 || 1)).toFixed(2), p99: +(large.p99 / (small.p99 || 1)).toFixed(2) };
    const misses = [];
    if (phase === 'off') {
      if (c.api && large.p99 >= P99_LIMIT_MS) misses.push(`p99 ${large.p99} ms ≥ ${P99_LIMIT_MS}`);
      if (c.name !== 'floor' && ratio.p99 > RATIO_LIMIT) misses.push(`p99 ratio ${ratio.p99} > ${RATIO_LIMIT}`);
    }
    if (small.failures + large.failures > 0) misses.push(`${small.failures + large.failures} failed requests`);
    return { case: c.name, path: c.path(facts.large, live.large), api: c.api, small, large, ratio, misses };
  });
}

function printSummary(phase, summary, labels) {
  console.log(`\nphase "${phase}", mean of the rounds (p50 / p99 ms; ratio = ${labels.large} / ${labels.small}):`);
  console.log(`| case | ${labels.small} p50 / p99 | ${labels.large} p50 / p99 | ratio p50 / p99 | ${labels.large} req/s | target |`);
  console.log('|---|---:|---:|---:|---:|---|');
  for (const s of summary) {
    const target = phase !== 'off' ? (s.misses.length ? s.misses.join('; ') : '–') : s.misses.length ? `MISSED: ${s.misses.join('; ')}` : 'met';
    console.log(
      `| ${s.case} | ${s.small.p50} / ${s.small.p99} | ${s.large.p50} / ${s.large.p99} | ${s.ratio.p50} / ${s.ratio.p99} | ${s.large.rps} | ${target} |`,
    );
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const sizes = opt('sizes', '100k,1m').split(',').map(parseSize);
  if (sizes.length !== 2 || !(sizes[0] < sizes[1])) throw new Error('--sizes takes two sizes, small first: --sizes 100k,1m');
  const labels = { small: label(sizes[0]), large: label(sizes[1]) };
  const load = {
    connections: num('connections', 4),
    duration: num('duration', 5),
    warmup: num('warmup', 1),
    rounds: num('rounds', 2),
  };
  const phases = opt('phases', 'off,defaults').split(',');
  const loadavgAtStart = os.loadavg().map((x) => +x.toFixed(2));
  const terms = searchTerms();

  await ensureDatabase(DATABASE_URL);
  const pg = new pgModule.Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const results = { date: new Date().toISOString(), sizes: labels, load, terms, cacheSwitches: CACHE_SWITCHES };
  const stacks = {};
  let ok = true;
  try {
    results.data = await prepareData(pg, sizes);
    const schemas = Object.fromEntries(
      ['small', 'large'].map((size) => [size, Object.fromEntries(results.data.filter((d) => d.size === size).map((d) => [d.kind, d.schema]))]),
    );
    const facts = { small: await dataFacts(pg, schemas.small, terms), large: await dataFacts(pg, schemas.large, terms) };
    results.facts = facts;
    for (const size of ['small', 'large']) {
      const f = facts[size];
      console.log(
        `${labels[size]}: ${f.sites.visible} visible sites; ${terms.common} ${f.sites.common}, ${terms.rare} ${f.sites.rare}, ${terms.chinese} ${f.sites.chinese}, tag 技术 ${f.sites.tag}; ` +
          `${f.apps.approved} approved apps, q=${terms.common} ${f.apps.q}; site page ${f.siteId}`,
      );
    }
    if (flag('seed-only')) return;

    if (!flag('no-explain')) {
      results.plans = { small: await explainPlans(pg, schemas.small, terms), large: await explainPlans(pg, schemas.large, terms) };
      console.log(`\nplans (execution ms, ${labels.small} → ${labels.large}):`);
      for (const [i, p] of results.plans.large.entries()) {
        console.log(`  ${p.kind.padEnd(8)} ${p.name.padEnd(40)} ${String(results.plans.small[i].ms).padStart(8)} → ${String(p.ms).padStart(8)}`);
      }
    }

    const only = opt('cases', null)?.split(',');
    const cases = casesFor(terms).filter((c) => !only || only.includes(c.name));
    results.phases = {};
    for (const phase of phases) {
      const env =
        phase === 'off' ? Object.fromEntries(CACHE_SWITCHES.map((s) => [s.setting, '0'])) : {};
      for (const size of ['small', 'large']) {
        stacks[size] = await startStack({ name: `${phase}-${labels[size]}`, databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, schemas: schemas[size], env });
      }
      const live = { small: await liveFacts(stacks.small.origin), large: await liveFacts(stacks.large.origin) };
      results.live = live;
      // A case a stack cannot answer (no cursor, no sitemap index: the code before the fixes) is left out.
      const runnable = cases.filter((c) => c.path(facts.small, live.small) && c.path(facts.large, live.large));
      for (const c of cases.filter((x) => !runnable.includes(x))) console.log(`  case ${c.name}: not served by this build, left out`);
      // Every path once on both stacks (JIT, connections), then the measured rounds.
      for (const c of runnable) for (const size of ['small', 'large']) await measure(stacks[size].origin, c, facts[size], live[size], { ...load, duration: 1 });
      const summary = await runPhase(phase, stacks, runnable, facts, live, load);
      results.phases[phase] = summary;
      printSummary(phase, summary, labels);
      ok &&= summary.every((s) => s.misses.length === 0);
      for (const size of ['small', 'large']) await stacks[size].stop();
    }
  } finally {
    await Promise.all(Object.values(stacks).map((s) => s.stop()));
    await pg.end();
  }

  const git = (...a) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' }).trim();
  results.tree = { head: git('rev-parse', '--short', 'HEAD'), dirty: git('status', '--porcelain').split('\n').filter(Boolean).length };
  results.machine = {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    loadavgAtStart,
    loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
  };
  results.ok = ok;
  console.log(
    `\nmachine: ${results.machine.nproc} CPUs (${results.machine.cpu}), node ${results.machine.node}, load average at start ${loadavgAtStart.join(' ')}, at end ${results.machine.loadavgAtEnd.join(' ')}`,
  );
  console.log(`targets (caches off: API p99 < ${P99_LIMIT_MS} ms at ${labels.large}, every case ≤ ${RATIO_LIMIT}× its ${labels.small} p99): ${ok ? 'met' : 'NOT all met'}`);
  const out = path.join(ROOT, 'bench', 'results', `growth-${labels.small}-${labels.large}-${new Date().toISOString().slice(0, 10)}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results: ${path.relative(ROOT, out)}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
