#!/usr/bin/env node
// Web client benchmark (README.md, "Web client"): the server-rendered pages `/`,
// `/site/{id}`, `/apps` and `/apps/{slug}` through the real gateway, with 100 000 sites and
// 100 000 apps seeded, next to the web service's own /healthz in the same run; the
// compressed JavaScript the home page loads; Lighthouse (mobile) on the four pages.
// Usage, from the repository root, after `pnpm turbo run build`:
//   flock /tmp/bench.lock node bench/web.mjs [--duration 10] [--warmup 2] [--rounds 2]
//        [--connections 50] [--no-lighthouse] [--lighthouse-runs 3] [--profile] [--profile-duration 8]
//        [--fresh-apps]
// (`npm run bench:web -- <options>` is the same on the project's Node.)
//
// Processes (all BUILT, `node dist/main.js`, NODE_ENV=production, LOG_LEVEL=info): auth,
// app-store, sites, chat, realtime, the gateway (TRUST_PROXY=loopback) and web
// (API_BASE_URL = the gateway). Data: the `sites` schema of svc_bench (bench/sites-seed.mjs,
// 100 000 sites), the `web_bench_app_store` schema of svc_bench (bench/lib/app-store-seed.mjs,
// 100 000 apps, kept between runs; --fresh-apps re-seeds), fresh `web_bench_chat` and
// `web_bench_auth` schemas (dropped at the end) and a throwaway Redis prefix (cleared at the
// end). 50 chat messages are posted through the gateway first, so the home page shows a full
// chat. The image of the day comes from a loopback stand-in of the provider (this machine
// reaches no outside host).
//
// Per-IP limits: every load request carries its own X-Forwarded-For from 198.18.0.0/15 (the
// benchmarking range, RFC 2544), 65 536 addresses in turn; the gateway trusts loopback, web
// passes the reader's address on, so each page's API calls count against that reader, as in
// production, and no limit is raised.
//
// Targets (gated, exit code 1 when missed): each page p99 < 50 ms, >= 0.30 of web's /healthz
// req/s of the same round (mean of the rounds), no failed request; home page JS <= 150 KB
// compressed (brotli); Lighthouse performance >= 90, accessibility, best practices, SEO >= 95.
// --profile: afterwards, one page at a time, web is restarted with --cpu-prof under the same
// load, and the profile is summarised (self time by category, top functions).
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFakeResend } from '../packages/service-kit/dist/testing/fake-resend.js';
import { appsSeeded, seedApps } from './lib/app-store-seed.mjs';
import { cpuMs } from './lib/process-cpu.mjs';
import { HOST, freePort, sleep, waitFor } from './lib/processes.mjs';
import { productionSettings } from './lib/production.mjs';
import { BENCH_DATABASE_URL, seedSites } from './sites-seed.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireGw = createRequire(path.join(ROOT, 'gateway', 'package.json'));
const requireRoot = createRequire(path.join(ROOT, 'package.json'));
const requireStore = createRequire(path.join(ROOT, 'services', 'app-store', 'package.json'));
const autocannon = requireGw('autocannon');

const P99_LIMIT_MS = 50;
const MIN_RATIO = 0.3;
const JS_LIMIT_BYTES = 150 * 1024;
const LIGHTHOUSE_MIN = { performance: 90, accessibility: 95, 'best-practices': 95, seo: 95 };
const ROWS = 100_000;
const APPS_SCHEMA = 'web_bench_app_store';
const CHAT_SCHEMA = 'web_bench_chat';
const AUTH_SCHEMA = 'web_bench_auth';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** What a browser sends (the pages are compressed by web's `compression`). */
const BROWSER_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.9',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
};

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const flag = (name) => process.argv.includes(`--${name}`);
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const round1 = (x) => Math.round(x * 10) / 10;

/** 198.18.0.0/15 (RFC 2544, benchmarking): the n-th reader address, 65 536 in turn. */
let readerSeq = 0;
const nextReader = () => {
  const n = readerSeq++ & 0xffff;
  return `198.18.${n >> 8}.${n & 255}`;
};

// ---------------------------------------------------------------- data

async function kit() {
  return import(pathToFileURL(path.join(ROOT, 'packages/service-kit/dist/index.js')).href);
}

/** A fresh schema with `service`'s migrations in the bench database. */
async function freshSchema(service, schema) {
  const k = await kit();
  const target = k.resolveDatabaseTarget(
    `${BENCH_DATABASE_URL}?schema=${schema}`,
    undefined,
    schema,
  );
  await k.ensureDatabaseAndSchema(target);
  await k.dropSchema(target).catch(() => undefined);
  await k.ensureDatabaseAndSchema(target);
  await k.applyMigrationSql(target, path.join(ROOT, 'services', service, 'prisma', 'migrations'));
  return { url: `${BENCH_DATABASE_URL}?schema=${schema}`, drop: () => k.dropSchema(target) };
}

/** The image-of-the-day provider, on loopback: one JSON answer and the sites service's own PNG. */
function startFakeImageProvider() {
  const png = readFileSync(path.join(ROOT, 'services', 'sites', 'assets', 'default-daily-bg.png'));
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/HPImageArchive.aspx')) {
      const body = JSON.stringify({
        images: [{ url: '/th?id=bench.png', copyright: 'Bench © svc', title: 'Bench' }],
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else if (req.url?.startsWith('/th')) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, HOST, () =>
      resolve({
        sourceUrl: `http://${HOST}:${server.address().port}/HPImageArchive.aspx?format=js&idx=0&n=1&mkt=en-US`,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/**
 * A private copy of web's Vite build (client assets + server bundle) for WEB_BUILD_DIR: the
 * web client is rebuilt often in this shared checkout, and a rebuild empties build/ under a
 * running process. Taken once build/ is complete and unchanged for 2 s (waits up to 5 min);
 * its node_modules link resolves the bundle's imports from services/web.
 */
async function snapshotWebBuild() {
  const src = path.join(ROOT, 'services', 'web', 'build');
  const entry = path.join(src, 'server', 'index.js');
  const dest = path.join(ROOT, 'bench', 'results', 'web-build');
  for (let i = 0; i < 150; i++) {
    const m0 =
      existsSync(entry) && existsSync(path.join(src, 'client', 'assets'))
        ? statSync(entry).mtimeMs
        : null;
    await sleep(2000);
    const m1 =
      existsSync(entry) && existsSync(path.join(src, 'client', 'assets'))
        ? statSync(entry).mtimeMs
        : null;
    if (m0 === null || m0 !== m1) continue;
    rmSync(dest, { recursive: true, force: true });
    cpSync(src, dest, { recursive: true });
    if (!existsSync(path.join(dest, 'server', 'index.js'))) continue;
    symlinkSync(
      path.join(ROOT, 'services', 'web', 'node_modules'),
      path.join(dest, 'node_modules'),
    );
    return { dir: dest, builtAt: new Date(m1).toISOString() };
  }
  throw new Error(
    'services/web/build did not settle within 5 minutes: run `pnpm --filter @svc/web build`',
  );
}

// ---------------------------------------------------------------- measuring

async function measure(url, { connections, duration }, pids) {
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  const r = await autocannon({
    url,
    connections,
    duration,
    headers: BROWSER_HEADERS,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, 'x-forwarded-for': nextReader() },
        }),
      },
    ],
  });
  const n = r.requests.total || 1;
  const cpuUsPerReq = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, round1(((cpuMs(pid) - cpu0[k]) * 1000) / n)]),
  );
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    requests: r.requests.total,
    bytesPerReq: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statusCodes: r.statusCodeStats,
    cpuUsPerReq,
  };
}

/** The gateway's request counters and time sums per route prefix (its /metrics). */
async function gatewayRoutes(origin) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(
    /^gateway_request_duration_seconds_(sum|count)\{([^}]*)\} ([0-9.e+-]+)$/gm,
  )) {
    const route = /route="([^"]*)"/.exec(m[2])?.[1] ?? '?';
    out[route] ??= { count: 0, sum: 0 };
    out[route][m[1]] += Number(m[3]);
  }
  return out;
}

/** Per page answered by web: API calls through the gateway per route, and their mean time. */
function apiCallsPerPage(before, after) {
  const delta = Object.fromEntries(
    Object.keys(after).map((r) => [
      r,
      {
        count: after[r].count - (before[r]?.count ?? 0),
        sum: after[r].sum - (before[r]?.sum ?? 0),
      },
    ]),
  );
  const pagesServed = delta['/']?.count ?? 0; // the pages route: `/`, upstream web
  if (!pagesServed) return null;
  return Object.fromEntries(
    Object.entries(delta)
      .filter(([r, d]) => r !== '/' && !r.startsWith('/metrics') && d.count > 0)
      .map(([r, d]) => [
        r,
        {
          perPage: +(d.count / pagesServed).toFixed(2),
          meanMs: +((1000 * d.sum) / d.count).toFixed(1),
        },
      ]),
  );
}

/** GET with one Accept-Encoding, the body as sent on the wire (not decompressed). */
function rawGet(url, encoding) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            encoding: res.headers['content-encoding'] ?? 'identity',
            bytes: Buffer.concat(chunks).length,
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

/** Every /assets/*.js the home page's HTML references, fetched br / gzip / identity. */
async function measureHomeJs(origin) {
  const html = await (await fetch(`${origin}/`, { headers: { 'accept-language': 'en' } })).text();
  const scriptSrc = [...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g)].map((m) => m[1]);
  const modulepreload = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*>/g)]
    .map((m) => /href="([^"]+)"/.exec(m[0])?.[1])
    .filter(Boolean);
  // React Router's inline module script imports the entry and the route modules.
  const inlineImports = [
    ...html.matchAll(/import\s*(?:[^"'()]*from\s*)?\(?\s*["']([^"']+\.js)["']/g),
  ].map((m) => m[1]);
  const all = [
    ...new Set(
      [...scriptSrc, ...modulepreload, ...inlineImports].filter((u) =>
        /^\/assets\/[^?#]+\.js$/.test(u),
      ),
    ),
  ];
  const files = [];
  for (const file of all) {
    const [br, gzip, identity] = [
      await rawGet(`${origin}${file}`, 'br'),
      await rawGet(`${origin}${file}`, 'gzip'),
      await rawGet(`${origin}${file}`, 'identity'),
    ];
    if (br.status !== 200 || gzip.status !== 200 || identity.status !== 200)
      throw new Error(`${file}: ${br.status}/${gzip.status}/${identity.status}`);
    files.push({
      file,
      br: br.bytes,
      brEncoding: br.encoding,
      gzip: gzip.bytes,
      gzipEncoding: gzip.encoding,
      identity: identity.bytes,
    });
  }
  const sum = (k) => files.reduce((a, f) => a + f[k], 0);
  return {
    htmlBytes: Buffer.byteLength(html),
    referencedBy: {
      scriptSrc: scriptSrc.length,
      modulepreload: modulepreload.length,
      inlineImports: inlineImports.length,
    },
    files,
    totals: { br: sum('br'), gzip: sum('gzip'), identity: sum('identity') },
  };
}

// ---------------------------------------------------------------- Lighthouse

async function runLighthouse(pages, runs) {
  let lighthouse;
  let chromeLauncher;
  try {
    lighthouse = (await import(pathToFileURL(requireRoot.resolve('lighthouse')).href)).default;
    chromeLauncher = await import(pathToFileURL(requireRoot.resolve('chrome-launcher')).href);
  } catch (err) {
    return { error: `lighthouse/chrome-launcher not installed: ${err.message}` };
  }
  if (!existsSync(CHROMIUM)) return { error: `no browser at ${CHROMIUM}` };
  const results = [];
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: CHROME_FLAGS,
    logLevel: 'silent',
  });
  try {
    const reportsDir = path.join(ROOT, 'bench', 'results', 'web-lighthouse');
    mkdirSync(reportsDir, { recursive: true });
    for (const page of pages) {
      // `runs` runs per page, the median by performance score reported (Lighthouse's own
      // advice for its variance); a run that failed to record (e.g. NO_NAVSTART) is retried.
      const lhrs = [];
      const errors = [];
      for (let attempt = 0; lhrs.length < runs && attempt < runs + 3; attempt++) {
        const runner = await lighthouse(page.url, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: Object.keys(LIGHTHOUSE_MIN),
        });
        if (runner.lhr.runtimeError) {
          errors.push(runner.lhr.runtimeError.code);
          continue;
        }
        lhrs.push({ lhr: runner.lhr, report: runner.report });
      }
      if (lhrs.length === 0) {
        results.push({
          page: page.name,
          url: page.url.replace(/^http:\/\/[^/]+/, ''),
          error: errors.join(', '),
        });
        console.log(`  lighthouse ${page.name}: no run recorded (${errors.join(', ')})`);
        continue;
      }
      const perfOf = (x) => x.lhr.categories.performance?.score ?? 0;
      const sorted = [...lhrs].sort((a, b) => perfOf(a) - perfOf(b));
      const { lhr, report } = sorted[Math.floor((sorted.length - 1) / 2)];
      writeFileSync(
        path.join(reportsDir, `${page.name.replace(/[^a-z0-9]+/gi, '_')}.json`),
        report,
      );
      const scores = Object.fromEntries(
        Object.keys(LIGHTHOUSE_MIN).map((c) => [
          c,
          Math.round((lhr.categories[c]?.score ?? 0) * 100),
        ]),
      );
      const metric = (id) => lhr.audits[id]?.numericValue;
      const failing = {};
      for (const c of Object.keys(LIGHTHOUSE_MIN)) {
        failing[c] = (lhr.categories[c]?.auditRefs ?? [])
          .filter((ref) => ref.weight > 0)
          .map((ref) => lhr.audits[ref.id])
          .filter((a) => a && a.score !== null && a.score < 0.9)
          .map((a) => ({
            id: a.id,
            title: a.title,
            score: a.score,
            displayValue: a.displayValue,
            // Where (accessibility, SEO, best practices): the first elements Lighthouse names.
            nodes: (a.details?.items ?? [])
              .slice(0, 3)
              .map((it) => it.node?.snippet ?? it.url ?? it.source?.url)
              .filter(Boolean),
          }));
      }
      results.push({
        page: page.name,
        url: page.url.replace(/^http:\/\/[^/]+/, ''),
        scores,
        metrics: {
          fcpMs: round1(metric('first-contentful-paint')),
          lcpMs: round1(metric('largest-contentful-paint')),
          tbtMs: round1(metric('total-blocking-time')),
          cls: metric('cumulative-layout-shift'),
          speedIndexMs: round1(metric('speed-index')),
          serverResponseMs: round1(metric('server-response-time')),
        },
        allRuns: lhrs.map(({ lhr: l }) =>
          Object.fromEntries(
            Object.keys(LIGHTHOUSE_MIN).map((c) => [
              c,
              Math.round((l.categories[c]?.score ?? 0) * 100),
            ]),
          ),
        ),
        failedRuns: errors,
        benchmarkIndex: lhr.environment?.benchmarkIndex,
        runWarnings: lhr.runWarnings,
        failing,
        lighthouseVersion: lhr.lighthouseVersion,
      });
      console.log(
        `  lighthouse ${page.name.padEnd(24)} (median of ${lhrs.length}; perf of each ${lhrs.map((x) => Math.round(perfOf(x) * 100)).join('/')}) perf ${scores.performance}  a11y ${scores.accessibility}  best ${scores['best-practices']}  seo ${scores.seo}` +
          `  (FCP ${results.at(-1).metrics.fcpMs} ms, LCP ${results.at(-1).metrics.lcpMs} ms, TBT ${results.at(-1).metrics.tbtMs} ms, CLS ${results.at(-1).metrics.cls})`,
      );
    }
  } finally {
    chrome.kill();
  }
  return {
    chromium: CHROMIUM,
    flags: CHROME_FLAGS,
    formFactor: 'mobile (default, simulated throttling)',
    pages: results,
  };
}

// ---------------------------------------------------------------- CPU profile summary

const CATEGORIES = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['program (native, unattributed)', (f) => f.functionName === '(program)'],
  [
    'React Router (server runtime, turbo-stream data)',
    (f) => /node_modules\/(@react-router|react-router)\//.test(f.url),
  ],
  [
    'React render (react-dom/server)',
    (f) => /node_modules\/(react-dom|react|scheduler)\//.test(f.url),
  ],
  ['i18n (i18next, react-i18next)', (f) => /node_modules\/(i18next|react-i18next)\//.test(f.url)],
  [
    'web app code (server build: components, loaders)',
    (f) => /services\/web\/(build|dist)\/|bench\/results\/web-build\//.test(f.url),
  ],
  ['API client (@svc/client) + zod', (f) => /packages\/(client|types)\/|\/zod\//.test(f.url)],
  ['fetch (undici) to the gateway', (f) => /undici/.test(f.url)],
  ['compression middleware + zlib', (f) => /compression|zlib|compressible|negotiator/.test(f.url)],
  [
    'express / router / kit middleware',
    (f) =>
      /express|router\/|body-parser|finalhandler|send\/|serve-static|service-kit|prom-client|on-finished|on-headers/.test(
        f.url,
      ),
  ],
  [
    'Node http/net/streams',
    (f) =>
      (f.url === '' &&
        /^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString|encodeInto|encodeUtf8String|shutdown)$/.test(
          f.functionName,
        )) ||
      /^node:(internal\/)?(http|_http|net|stream|streams|internal\/streams|buffer|events|timers|async_hooks|internal\/webstreams|internal\/url|url|internal\/http)/.test(
        f.url,
      ) ||
      /node:internal\/(streams|webstreams|http|net|timers|process|async_hooks|url|buffer|event_target|abort_controller|perf)/.test(
        f.url,
      ),
  ],
  ['other Node internals', (f) => f.url.startsWith('node:')],
  ['other', () => true],
];

function summariseProfile(file) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // Start-up (module loading: the profile runs from the process's start) is set apart.
  const loading = new Map();
  const isLoading = (id) => {
    if (loading.has(id)) return loading.get(id);
    const n = byId.get(id);
    const v =
      n.callFrame.url.startsWith('node:internal/modules/') ||
      (parentOf.has(id) ? isLoading(parentOf.get(id)) : false);
    loading.set(id, v);
    return v;
  };
  const selfUs = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  const cats = new Map();
  const fns = new Map();
  const catFns = new Map();
  let total = 0;
  let busy = 0;
  let startupUs = 0;
  for (const [id, us] of selfUs) {
    if (isLoading(id)) {
      startupUs += us;
      total += us;
      continue;
    }
    const f = byId.get(id).callFrame;
    // Match on the package path only (pnpm's store folder names list peer packages too).
    const pkgUrl = f.url.replace(/^.*node_modules\//, 'node_modules/');
    const cat = CATEGORIES.find(([, test]) => test({ ...f, url: pkgUrl }))[0];
    cats.set(cat, (cats.get(cat) ?? 0) + us);
    total += us;
    if (cat !== 'idle') busy += us;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(ROOT, '')}:${f.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    if (!catFns.has(cat)) catFns.set(cat, new Map());
    catFns.get(cat).set(key, (catFns.get(cat).get(key) ?? 0) + us);
  }
  const pct = (us) => +((100 * us) / (busy || 1)).toFixed(1);
  return {
    file: path.relative(ROOT, file),
    sampledMs: Math.round(total / 1000),
    busyMs: Math.round(busy / 1000),
    startupMsExcluded: Math.round(startupUs / 1000),
    categories: [...cats]
      .filter(([c]) => c !== 'idle')
      .sort((a, b) => b[1] - a[1])
      .map(([c, us]) => ({
        category: c,
        ms: Math.round(us / 1000),
        pctOfBusy: pct(us),
        top: [...catFns.get(c)]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([k, v]) => `${k} (${pct(v)} %)`),
      })),
    topFunctions: [...fns]
      .sort((a, b) => b[1] - a[1])
      .filter(([k]) => !k.startsWith('(idle)'))
      .slice(0, 25)
      .map(([k, us]) => ({ fn: k, ms: Math.round(us / 1000), pctOfBusy: pct(us) })),
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const load = {
    connections: arg('connections', 50),
    duration: arg('duration', 10),
    warmup: arg('warmup', 2),
    rounds: arg('rounds', 2),
  };
  const loadavgAtStart = os.loadavg().map((x) => +x.toFixed(2));
  for (const built of [
    'services/web/dist/main.js',
    'gateway/dist/main.js',
    'services/sites/dist/main.js',
    'services/app-store/dist/main.js',
    'services/chat/dist/main.js',
    'services/auth/dist/main.js',
    'services/realtime/dist/main.js',
  ]) {
    if (!existsSync(path.join(ROOT, built)))
      throw new Error(`${built} is missing: run \`pnpm turbo run build\` first`);
  }

  const webBuild = await snapshotWebBuild();
  console.log(
    `web build: copy of services/web/build (built ${webBuild.builtAt}) in ${path.relative(ROOT, webBuild.dir)}`,
  );

  // Data: 100 000 sites (kept in svc_bench.sites), 100 000 apps (kept in svc_bench.web_bench_app_store).
  const s = await seedSites({ count: ROWS });
  console.log(
    s.seeded
      ? `seeded ${ROWS} sites in ${s.ms} ms`
      : `${ROWS} sites already seeded (svc_bench.sites)`,
  );
  const pg = new (requireRoot('pg').Client)({ connectionString: BENCH_DATABASE_URL });
  await pg.connect();
  if (flag('fresh-apps') || !(await appsSeeded(pg, ROWS, APPS_SCHEMA))) {
    const ms = await seedApps(pg, ROWS, APPS_SCHEMA);
    console.log(`seeded ${ROWS} apps into svc_bench.${APPS_SCHEMA} in ${(ms / 1000).toFixed(1)} s`);
  } else {
    console.log(`${ROWS} apps already seeded (svc_bench.${APPS_SCHEMA})`);
  }
  await pg.end();
  const [chatDb, authDb] = [
    await freshSchema('chat', CHAT_SCHEMA),
    await freshSchema('auth', AUTH_SCHEMA),
  ];

  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  const redisPrefix = `bench:web:${randomBytes(4).toString('hex')}:`;
  const imageProvider = await startFakeImageProvider();
  // Auth mails login codes only to this loopback fake (no page here logs in).
  const resend = await startFakeResend();

  const children = new Map();
  const stopAll = () =>
    [...children.values()].forEach((c) => c.exitCode === null && c.kill('SIGTERM'));
  process.on('exit', stopAll);
  const start = (name, entry, env, nodeArgs = []) => {
    const child = spawn(process.execPath, [...nodeArgs, entry], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        REDIS_URL,
        REDIS_PREFIX: redisPrefix,
        DATABASE_URL: BENCH_DATABASE_URL,
        JWT_PUBLIC_KEY: keys.JWT_PUBLIC_KEY,
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.set(name, child);
    return child;
  };
  const stop = async (name) => {
    const c = children.get(name);
    if (c && c.exitCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
    children.delete(name);
  };

  const git = (...a) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' }).trim();
  // The tree measured: HEAD, and whether services/web had uncommitted changes (others work in it).
  const tree = {
    head: git('rev-parse', '--short', 'HEAD'),
    webUncommitted: git('status', '--porcelain', '--', 'services/web').split('\n').filter(Boolean)
      .length,
  };
  const results = { date: new Date().toISOString(), load, webBuild, tree };
  let ok = true;
  try {
    const port = Object.fromEntries(
      await Promise.all(
        ['auth', 'appStore', 'sites', 'chat', 'realtime', 'gateway', 'gatewayOps', 'web'].map(
          async (n) => [n, await freePort()],
        ),
      ),
    );
    if (new Set(Object.values(port)).size !== Object.keys(port).length)
      throw new Error('port collision, run again');
    const gatewayOrigin = `http://${HOST}:${port.gateway}`;
    const url = (p) => `http://${HOST}:${p}`;
    // What production requires, else a process refuses to start (docs/decisions/013-operations-port.md).
    const production = productionSettings({
      publicBaseUrl: gatewayOrigin,
      resendBaseUrl: resend.baseUrl,
    });
    start('auth', 'services/auth/dist/main.js', {
      ...production,
      PORT: String(port.auth),
      AUTH_DATABASE_URL: authDb.url,
      JWT_PRIVATE_KEY: keys.JWT_PRIVATE_KEY,
      LOGIN_CODE_SECRET: randomBytes(16).toString('hex'),
    });
    start('app-store', 'services/app-store/dist/main.js', {
      ...production,
      PORT: String(port.appStore),
      APP_STORE_DATABASE_URL: `${BENCH_DATABASE_URL}?schema=${APPS_SCHEMA}`,
    });
    start('sites', 'services/sites/dist/main.js', {
      ...production,
      PORT: String(port.sites),
      DAILY_BG_SOURCE_URL: imageProvider.sourceUrl,
    });
    start('chat', 'services/chat/dist/main.js', {
      ...production,
      PORT: String(port.chat),
      CHAT_DATABASE_URL: chatDb.url,
    });
    start('realtime', 'services/realtime/dist/main.js', {
      ...production,
      PORT: String(port.realtime),
      CHAT_URL: url(port.chat),
    });
    start('gateway', 'gateway/dist/main.js', {
      ...production,
      PORT: String(port.gateway),
      // Its /metrics is on the private ops listener (docs/decisions/013-operations-port.md).
      OPS_PORT: String(port.gatewayOps),
      TRUST_PROXY: 'loopback',
      AUTH_URL: url(port.auth),
      APP_STORE_URL: url(port.appStore),
      SITES_URL: url(port.sites),
      CHAT_URL: url(port.chat),
      REALTIME_URL: url(port.realtime),
      WEB_URL: url(port.web),
      // translate is not started: its prefix answers 502/503, no page here calls it.
      TRANSLATE_URL: `http://${HOST}:9`,
    });
    const webEnv = {
      ...production,
      PORT: String(port.web),
      WEB_BUILD_DIR: webBuild.dir,
    };
    start('web', 'services/web/dist/main.js', webEnv);
    for (const [name, p] of [
      ['auth', port.auth],
      ['app-store', port.appStore],
      ['sites', port.sites],
      ['chat', port.chat],
      ['realtime', port.realtime],
      ['web', port.web],
    ]) {
      await waitFor(`${url(p)}/readyz`, children.get(name), name, { attempts: 300 });
    }
    await waitFor(`${gatewayOrigin}/healthz`, children.get('gateway'), 'gateway');

    // 50 chat messages (the home page lists the last 50), each from its own reader (10 posts/min per IP).
    const lines = [
      'Hello from the benchmark!',
      '今天的网站很有意思',
      'Has anyone tried the new chess app?',
      'Bonjour à tous',
      'Look at this site, it is great',
      'こんにちは',
      '안녕하세요',
      'Guten Morgen',
    ];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${gatewayOrigin}/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.19.255.${i + 1}` },
        body: JSON.stringify({ content: `${lines[i % lines.length]} #${i + 1}` }),
      });
      if (res.status !== 201) throw new Error(`chat post: ${res.status} ${await res.text()}`);
    }
    // A real site id and app slug: the first of each listing (the most visited kind of page).
    const sitesList = await (await fetch(`${gatewayOrigin}/api/sites`)).json();
    const appsList = await (await fetch(`${gatewayOrigin}/api/v1/apps`)).json();
    // Past 1,000 matches the total is PostgreSQL's estimate, rounded (docs/decisions/038-growth.md).
    if (Math.abs(sitesList.total - ROWS) > ROWS / 50)
      throw new Error(`sites listing total ${sitesList.total}, expected ${ROWS}`);
    const siteId = sitesList.sites[0].id;
    const appSlug = appsList.apps[0].slug;
    const pages = [
      { name: 'home /', path: '/' },
      { name: `/site/${siteId}`, path: `/site/${encodeURIComponent(siteId)}` },
      { name: '/apps', path: '/apps' },
      { name: `/apps/${appSlug}`, path: `/apps/${encodeURIComponent(appSlug)}` },
    ];
    results.data = {
      sites: ROWS,
      apps: ROWS,
      appsApproved: appsList.meta?.total,
      chatMessages: 50,
      siteId,
      appSlug,
    };
    for (const p of pages) {
      const res = await fetch(`${gatewayOrigin}${p.path}`, { headers: BROWSER_HEADERS });
      const html = await res.text();
      p.status = res.status;
      p.htmlBytes = Buffer.byteLength(html);
      p.compressedBytes = (await rawGet(`${gatewayOrigin}${p.path}`, 'gzip, deflate, br')).bytes;
      // What the HTML is made of: inline scripts (React Router's serialised loader data and
      // hydration code) against the markup.
      p.inlineScriptBytes = [
        ...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g),
      ].reduce((a, m) => a + Buffer.byteLength(m[1]), 0);
      if (res.status !== 200) throw new Error(`${p.path}: ${res.status} ${html.slice(0, 300)}`);
      console.log(
        `page ${p.name}: ${res.status}, ${p.htmlBytes} B of HTML, ${p.inlineScriptBytes} B of it inline scripts (${p.compressedBytes} B as sent with br/gzip)`,
      );
    }
    results.pages = pages.map(
      ({ name, path: p, htmlBytes, inlineScriptBytes, compressedBytes }) => ({
        name,
        path: p,
        htmlBytes,
        inlineScriptBytes,
        compressedBytes,
      }),
    );

    const pids = () => Object.fromEntries([...children].map(([n, c]) => [n, c.pid]));
    const cases = [
      { name: 'web /healthz (direct)', url: `${url(port.web)}/healthz`, gated: false },
      ...pages.map((p) => ({ name: p.name, url: `${gatewayOrigin}${p.path}`, gated: true })),
    ];
    console.log(
      `\nload: ${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s per case, ${load.rounds} round(s); X-Forwarded-For from 198.18.0.0/15`,
    );
    // JIT and connection warm-up of every process on every path.
    for (const c of cases) await measure(c.url, { ...load, duration: 1 }, {});
    const runs = [];
    for (let r = 1; r <= load.rounds; r++) {
      let healthzRps;
      for (const c of cases) {
        if (load.warmup > 0) await measure(c.url, { ...load, duration: load.warmup }, {});
        const before = c.gated ? await gatewayRoutes(`http://${HOST}:${port.gatewayOps}`) : null;
        const m = await measure(c.url, load, pids());
        if (before) {
          const after = await gatewayRoutes(`http://${HOST}:${port.gatewayOps}`);
          m.apiCalls = apiCallsPerPage(before, after);
          const [a, b] = [after['/'], before['/']];
          if (a)
            m.pageMeanMsAtGateway = +(
              (1000 * (a.sum - (b?.sum ?? 0))) /
              (a.count - (b?.count ?? 0) || 1)
            ).toFixed(1);
        }
        if (c.name.startsWith('web /healthz')) healthzRps = m.rps;
        m.ratio = +(m.rps / healthzRps).toFixed(3);
        runs.push({ round: r, case: c.name, ...m });
        const cpu = Object.entries(m.cpuUsPerReq)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
        console.log(
          `  r${r} ${c.name.padEnd(28)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  ratio ${m.ratio}` +
            (m.non2xx || m.errors ? `  non2xx ${m.non2xx} errors ${m.errors}` : '') +
            `\n      CPU µs/req: ${cpu}` +
            (m.apiCalls
              ? `\n      API calls per page (mean ms at the gateway): ${Object.entries(m.apiCalls)
                  .map(([r, a]) => `${r} ${a.perPage} (${a.meanMs} ms)`)
                  .join(', ')}; page mean ${m.pageMeanMsAtGateway} ms`
              : ''),
        );
      }
    }
    // One connection per page (no queueing): the time a single render takes end to end,
    // to tell service time from the queueing that 50 connections add.
    const single = [];
    for (const c of cases) {
      const m = await measure(
        c.url,
        { connections: 1, duration: Math.min(5, load.duration) },
        pids(),
      );
      single.push({
        case: c.name,
        rps: m.rps,
        p50: m.p50,
        p90: m.p90,
        p99: m.p99,
        non2xx: m.non2xx,
        errors: m.errors,
        cpuUsPerReq: m.cpuUsPerReq,
      });
      console.log(
        `  1 connection: ${c.name.padEnd(28)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50} ms  p90 ${m.p90} ms  p99 ${m.p99} ms  web CPU ${m.cpuUsPerReq.web} µs/req`,
      );
    }
    results.singleConnection = single;
    const summary = cases.map((c) => {
      const rs = runs.filter((x) => x.case === c.name);
      const cpu = Object.fromEntries(
        Object.keys(rs[0].cpuUsPerReq).map((k) => [
          k,
          round1(mean(rs.map((x) => x.cpuUsPerReq[k]))),
        ]),
      );
      return {
        case: c.name,
        gated: c.gated,
        rps: Math.round(mean(rs.map((x) => x.rps))),
        p50: round1(mean(rs.map((x) => x.p50))),
        p99: round1(mean(rs.map((x) => x.p99))),
        worstP99: Math.max(...rs.map((x) => x.p99)),
        ratio: +mean(rs.map((x) => x.ratio)).toFixed(3),
        bytesPerReq: rs[0].bytesPerReq,
        non2xx: rs.reduce((a, x) => a + x.non2xx, 0),
        errors: rs.reduce((a, x) => a + x.errors, 0),
        cpuUsPerReq: cpu,
        cpuUsPerReqAll: round1(Object.values(cpu).reduce((a, b) => a + b, 0)),
      };
    });
    console.log(`\nmean of ${load.rounds} round(s):`);
    console.log(
      '| case | req/s | p50 ms | p99 ms (mean / worst) | B/req | non-2xx | ratio to /healthz | CPU µs/req web / gateway / sites / app-store / chat (all processes) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const x of summary) {
      const c = x.cpuUsPerReq;
      console.log(
        `| ${x.case} | ${x.rps} | ${x.p50} | ${x.p99} / ${x.worstP99} | ${x.bytesPerReq} | ${x.non2xx + x.errors} | ${x.ratio} | ${c.web} / ${c.gateway} / ${c.sites} / ${c['app-store']} / ${c.chat} (${x.cpuUsPerReqAll}) |`,
      );
    }
    results.runs = runs;
    results.summary = summary;
    results.loadavgAfterLoad = os.loadavg().map((x) => +x.toFixed(2));
    const loadOk = summary
      .filter((x) => x.gated)
      .every((x) => x.p99 < P99_LIMIT_MS && x.ratio >= MIN_RATIO && x.non2xx + x.errors === 0);
    ok &&= loadOk;

    // Compressed JavaScript of the home page.
    const js = await measureHomeJs(gatewayOrigin);
    results.homeJs = js;
    const jsOk = js.totals.br <= JS_LIMIT_BYTES;
    ok &&= jsOk;
    console.log(
      `\nhome page JavaScript: ${js.files.length} files (script src ${js.referencedBy.scriptSrc}, modulepreload ${js.referencedBy.modulepreload}, inline imports ${js.referencedBy.inlineImports})`,
    );
    for (const f of js.files)
      console.log(
        `  ${f.file}  br ${f.br} B (${f.brEncoding})  gzip ${f.gzip} B (${f.gzipEncoding})  uncompressed ${f.identity} B`,
      );
    console.log(
      `  total: br ${js.totals.br} B, gzip ${js.totals.gzip} B, uncompressed ${js.totals.identity} B (limit ${JS_LIMIT_BYTES} B): ${jsOk ? 'met' : 'NOT met'}`,
    );

    // Lighthouse, after the load (nothing else running against the processes).
    if (!flag('no-lighthouse')) {
      console.log('\nlighthouse (mobile):');
      const lh = await runLighthouse(
        pages.map((p) => ({ name: p.name, url: `${gatewayOrigin}${p.path}` })),
        arg('lighthouse-runs', 3),
      );
      results.lighthouse = lh;
      if (lh.error) {
        console.log(`  not run: ${lh.error}`);
        ok = false;
      } else {
        const lhOk = lh.pages.every(
          (p) => !p.error && Object.entries(LIGHTHOUSE_MIN).every(([c, min]) => p.scores[c] >= min),
        );
        for (const p of lh.pages) {
          for (const [c, list] of Object.entries(p.failing ?? {})) {
            if (list.length)
              console.log(
                `  ${p.page} ${c}: ${list.map((a) => `${a.id} (${a.score}${a.displayValue ? `, ${a.displayValue}` : ''})`).join('; ')}`,
              );
          }
        }
        ok &&= lhOk;
      }
    }

    // CPU profile of web, one page at a time (web restarted with --cpu-prof on the same port).
    if (flag('profile')) {
      const dir = path.join(ROOT, 'bench', 'results', 'web-profile');
      rmSync(dir, { recursive: true, force: true });
      results.profiles = [];
      console.log('\nCPU profiles of web (--cpu-prof), one page at a time:');
      for (const p of pages) {
        await stop('web');
        const sub = path.join(dir, p.name.replace(/[^a-z0-9]+/gi, '_'));
        mkdirSync(sub, { recursive: true });
        start('web', 'services/web/dist/main.js', webEnv, ['--cpu-prof', '--cpu-prof-dir', sub]);
        await waitFor(`${url(port.web)}/readyz`, children.get('web'), 'web (profiled)');
        await measure(`${gatewayOrigin}${p.path}`, { ...load, duration: 2 }, {});
        const m = await measure(
          `${gatewayOrigin}${p.path}`,
          { ...load, duration: arg('profile-duration', 8) },
          { web: children.get('web').pid },
        );
        await stop('web');
        await sleep(200);
        const file = readdirSync(sub).find((f) => f.endsWith('.cpuprofile'));
        if (!file) {
          console.log(`  ${p.name}: no profile written`);
          continue;
        }
        const summary = {
          page: p.name,
          rps: m.rps,
          p99: m.p99,
          requests: m.requests,
          webCpuUsPerReq: m.cpuUsPerReq.web,
          ...summariseProfile(path.join(sub, file)),
        };
        summary.mainThreadUsPerReq = round1(
          (summary.busyMs * 1000) / (m.requests + 2 * m.rps || 1),
        );
        results.profiles.push(summary);
        console.log(
          `  ${p.name}: ${m.rps} req/s under the profiler, web CPU ${m.cpuUsPerReq.web} µs/req; main thread busy ${summary.busyMs} ms of ${summary.sampledMs} ms sampled (start-up ${summary.startupMsExcluded} ms set apart)`,
        );
        for (const c of summary.categories.slice(0, 10))
          console.log(`    ${String(c.pctOfBusy).padStart(5)} %  ${c.category}`);
        for (const f of summary.topFunctions.slice(0, 8))
          console.log(`           ${String(f.pctOfBusy).padStart(5)} %  ${f.fn}`);
      }
      // web back as it was, for nothing else: the run is over.
    }
  } finally {
    stopAll();
    await Promise.all(
      [...children.values()].map((c) =>
        c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null,
      ),
    );
    await imageProvider.close();
    await resend.close();
    const { Redis } = requireStore('ioredis');
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    await chatDb.drop().catch(() => undefined);
    await authDb.drop().catch(() => undefined);
  }

  results.machine = {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    loadavgAtStart,
    loadavgAtEnd: os.loadavg().map((x) => +x.toFixed(2)),
  };
  results.ok = ok;
  console.log(
    `\nmachine: ${results.machine.nproc} CPUs (${results.machine.cpu}), node ${results.machine.node}, load average at start ${loadavgAtStart.join(' ')}, after the load ${results.loadavgAfterLoad?.join(' ')}, at end ${results.machine.loadavgAtEnd.join(' ')}`,
  );
  console.log(`targets: ${ok ? 'met' : 'NOT all met'}`);
  const out = path.join(
    ROOT,
    'bench',
    'results',
    `web-${new Date().toISOString().slice(0, 10)}.json`,
  );
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results: ${path.relative(ROOT, out)}`);
  process.exitCode = ok ? 0 : 1;
}

// `--summarise <file.cpuprofile>`: only print the summary of a profile already written.
const summariseIndex = process.argv.indexOf('--summarise');
const entry =
  summariseIndex === -1
    ? main()
    : Promise.resolve().then(() =>
        console.log(
          JSON.stringify(summariseProfile(path.resolve(process.argv[summariseIndex + 1])), null, 2),
        ),
      );
entry.catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
