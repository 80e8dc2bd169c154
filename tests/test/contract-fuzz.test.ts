// Property-based contract fuzzing of the whole system: for every operation of the endpoint
// catalogue, fast-check builds requests from the operation's zod schemas (valid ones with
// real ids, and mutated ones: see fuzz/mutations.ts), with and without a session or an API
// key, and sends them through the gateway to every built process on real PostgreSQL and
// Redis. Every answer must be: no 5xx; a 4xx as JSON { "error": string } with a status the
// served /openapi.json documents for the operation; a 2xx whose body parses with the
// operation's response schema (zod, and the document's through the contract harness).
// Every operation must succeed at least once, so the run is more than 401s and 429s.
// The agent tools' inputs also go through the MCP server (/mcp) with the SDK's client
// (fuzz/mcp-calls.ts): every call ends as a tool result without a 5xx behind it or as
// JSON-RPC "invalid params", never as a transport failure; every tool succeeds at least once.
//
// Bounded and reproducible: FUZZ_SEED (printed at the start; random when unset) and
// FUZZ_RUNS requests per operation (default 50). A failure prints the command that replays
// it, fast-check's report and the request as sent (tests/README.md, "Contract fuzzer").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { TOOL_SPECS } from '@svc/discovery';
import { ENDPOINTS } from '@svc/types';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract } from './contract-harness.js';
import { startFakes } from './contract-system-fakes.js';
import { createMcpRunner, toolCallArbitrary, type ListedTool, type McpRunner, type ToolCall } from './fuzz/mcp-calls.js';
import { createRunner, requestArbitrary, type FuzzRequest, type Runner } from './fuzz/requests.js';
import { MODERATOR_EMAIL, seedWorld, type World } from './fuzz/world.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
if (!Number.isSafeInteger(SEED) || !Number.isSafeInteger(RUNS) || RUNS < 1)
  throw new Error(`FUZZ_SEED and FUZZ_RUNS must be integers (got ${process.env.FUZZ_SEED}, ${process.env.FUZZ_RUNS})`);
/** The documented test setting that raises every limit (docs/configuration.md). */
const RATE_LIMIT_SCALE = '1000';
const CAPTCHA_SECRET = 'fuzz-captcha-secret';
const CAPTCHA_TOKEN = 'fuzz-good-token';
const INTERNAL_TOKEN = 'fuzz-internal-token-0123456789';
const IP_HASH_SECRET = 'fuzz-ip-hash-secret-0123456789';

console.log(`contract fuzz: seed ${SEED}, ${RUNS} requests per operation (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`);

const system = createTestSystem();
let gateway: ServiceProcess;
let contract: Contract;
let resend: FakeResend;
let world: World;
let runner: Runner;
let mcpRunner: McpRunner;
/** The tools as the MCP server lists them (their inputSchemas drive the generated calls). */
let listedTools: ListedTool[];
const startedAt = Date.now();

beforeAll(async () => {
  const fakes = await startFakes(system, { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
  const { anthropic, imageProvider: images, captcha, website } = fakes;
  resend = fakes.resend;
  images.setUp(true);
  const [authDb, appStoreDb, sitesDb, chatDb] = await Promise.all(
    (['auth', 'app-store', 'sites', 'chat'] as const).map((s) => system.database(s)),
  );
  const common = {
    REDIS_PREFIX: system.redisPrefix,
    JWT_PUBLIC_KEY: system.keys.publicKey,
    RATE_LIMIT_SCALE,
  };
  const ai = { ANTHROPIC_API_KEY: 'sk-ant-fuzz', ANTHROPIC_BASE_URL: anthropic.baseURL };
  // A whole system starting at once on two cores: longer than the default 20 s to be healthy.
  const start = (name: string, env: Record<string, string>) =>
    system.start(name === 'gateway' ? 'gateway/dist/main.js' : `services/${name}/dist/main.js`, env, { healthTimeoutMs: 60_000 });
  const [appStore, sites, chat, translate] = await Promise.all([
    start('app-store', { ...common, APP_STORE_DATABASE_URL: appStoreDb!.url, APP_STORE_LISTING_CACHE_MS: '0', IP_HASH_SECRET, INTERNAL_TOKEN }),
    start('sites', {
      ...common,
      ...ai,
      SITES_DATABASE_URL: sitesDb!.url,
      IP_HASH_SECRET,
      INTERNAL_TOKEN,
      OUTBOUND_ALLOW_HOSTS: website.host,
      SITES_LIST_CACHE_MS: '0',
      SITES_COUNT_CACHE_MS: '0',
      // One site a sitemap file: /sitemap.xml is an index and /sitemap-1.xml … exist.
      SITEMAP_MAX_SITES: '1',
      CAPTCHA_SECRET_KEY: CAPTCHA_SECRET,
      CAPTCHA_VERIFY_URL: captcha.verifyUrl,
      DAILY_BG_SOURCE_URL: images.sourceUrl,
    }),
    start('chat', { ...common, CHAT_DATABASE_URL: chatDb!.url, IP_HASH_SECRET, INTERNAL_TOKEN }),
    start('translate', { ...common, ...ai, TRANSLATE_AI_MAX_RETRIES: '0' }),
  ]);
  // auth asks app-store, sites and chat for their part of a data export: it starts once
  // their addresses are known, beside realtime, which waits for chat too.
  const [auth, realtime] = await Promise.all([
    start('auth', {
      ...common,
      AUTH_DATABASE_URL: authDb!.url,
      JWT_PRIVATE_KEY: system.keys.privateKey,
      RESEND_API_KEY: 're_fuzz',
      RESEND_BASE_URL: resend.baseUrl,
      EMAIL_FROM: 'Svc <login@svc.test>',
      MODERATOR_EMAILS: MODERATOR_EMAIL,
      APP_STORE_URL: appStore!.url,
      SITES_URL: sites!.url,
      CHAT_URL: chat!.url,
      INTERNAL_TOKEN,
    }),
    start('realtime', { REDIS_PREFIX: system.redisPrefix, CHAT_URL: chat!.url, INTERNAL_TOKEN }),
  ]);
  const mcp = await start('mcp', { APP_STORE_URL: appStore!.url, SITES_URL: sites!.url, CHAT_URL: chat!.url, TRANSLATE_URL: translate!.url });
  // The gateway sends page paths to web and its /readyz asks web: an always-ready stand-in.
  const web = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  system.track({ close: () => new Promise<void>((resolve) => (web.closeAllConnections(), web.close(() => resolve()))) });
  gateway = await start('gateway', {
    AUTH_URL: auth!.url,
    APP_STORE_URL: appStore!.url,
    SITES_URL: sites!.url,
    CHAT_URL: chat!.url,
    TRANSLATE_URL: translate!.url,
    REALTIME_URL: realtime.url,
    WEB_URL: `http://127.0.0.1:${(web.address() as AddressInfo).port}`,
    MCP_URL: mcp.url,
    // Each request names its own client (X-Forwarded-For), as a proxy in front would.
    TRUST_PROXY: 'loopback',
  });
  contract = await loadContract(gateway.url);
  world = await seedWorld({ contract, resend, captchaToken: CAPTCHA_TOKEN, website });
  runner = createRunner({ baseUrl: gateway.url, contract, world, resend });
  mcpRunner = createMcpRunner({ baseUrl: gateway.url });
  const lister = new Client({ name: 'svc-contract-fuzz', version: '1.0.0' });
  await lister.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  listedTools = (await lister.listTools()).tools as ListedTool[];
  await lister.close();
}, 120_000);

afterAll(async () => {
  await mcpRunner?.close();
  await system.stop();
  if (!runner) return;
  const byStatus: Record<number, number> = {};
  for (const s of [...runner.statuses().values()].flat()) byStatus[s] = (byStatus[s] ?? 0) + 1;
  console.log(
    `contract fuzz: seed ${SEED}, ${runner.sent()} requests (and ${world.seedRequests} to seed) in ` +
      `${((Date.now() - startedAt) / 1000).toFixed(0)} s, start and stop included; statuses ${JSON.stringify(byStatus)}`,
  );
  const endings: Record<string, number> = {};
  for (const e of [...(mcpRunner?.endings().values() ?? [])].flat()) endings[e] = (endings[e] ?? 0) + 1;
  console.log(`contract fuzz: MCP tool calls ended as ${JSON.stringify(endings)}`);
}, 60_000);

/**
 * The seed of one operation's property, from the run's: with one seed for all, operations of
 * the same shape drew the same choices at the same step (one oversized query for all of them).
 */
function seedOf(operationId: string): number {
  let hash = SEED >>> 0;
  for (const ch of operationId) hash = Math.imul(hash ^ ch.charCodeAt(0), 16_777_619) >>> 0;
  return hash & 0x7fffffff;
}

/** Operations whose property failed, and so sent fewer requests than the others. */
const stoppedEarly = new Set<string>();

/** The property of one operation: every answer to its requests keeps the contract. */
async function fuzz(operationId: string): Promise<void> {
  const endpoint = ENDPOINTS.find((e) => e.operationId === operationId)!;
  const property = fc.asyncProperty(requestArbitrary(endpoint, world), async (request: FuzzRequest) => {
    const outcome = await runner.run(request);
    if (outcome.problems.length > 0)
      throw new Error(`${outcome.problems.join('\n')}\nrequest (${request.variant}):\n${outcome.replay}`);
  });
  // No shrinking: each request already breaks one thing, and the system's state moves on.
  // FUZZ_PATH (with -t <operationId>) replays the one request fast-check reported.
  const path = process.env.FUZZ_PATH;
  const details = await fc.check(property, { seed: seedOf(operationId), numRuns: RUNS, endOnFailure: true, ...(path ? { path } : {}) });
  if (details.failed) {
    stoppedEarly.add(operationId);
    throw new Error(
      `replay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath} pnpm test test/contract-fuzz.test.ts -t ${operationId}\n` +
        `${fc.defaultReportMessage(details)}\n\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    );
  }
}

describe('every operation keeps the contract under generated requests', () => {
  for (const { operationId, method, path } of ENDPOINTS)
    it(`${operationId} (${method} ${path})`, () => fuzz(operationId), 120_000);

  it('every operation answered at least one success (2xx, or 101 for the WebSocket)', () => {
    const statuses = runner.statuses();
    const succeeded = (id: string) => (statuses.get(id) ?? []).some((s) => (s >= 200 && s < 300) || s === 101);
    // One that failed above stopped at its failure, which is the report; the others ran all.
    const ran = ENDPOINTS.map((e) => e.operationId).filter((id) => !stoppedEarly.has(id));
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.filter((id) => !succeeded(id))).toEqual([]);
  });

});

/** The property of one tool: every call through the MCP server ends as a client expects. */
async function fuzzTool(name: string): Promise<void> {
  const tool = listedTools.find((t) => t.name === name);
  expect(tool).toBeDefined();
  const property = fc.asyncProperty(toolCallArbitrary(tool!, world), async (call: ToolCall) => {
    const outcome = await mcpRunner.run(call);
    if (outcome.problems.length > 0)
      throw new Error(`${outcome.problems.join('\n')}\ncall (${call.variant}, agent ${call.ip}): ${name} ${JSON.stringify(call.arguments).slice(0, 500)}`);
  });
  const path = process.env.FUZZ_PATH;
  const details = await fc.check(property, { seed: seedOf(`mcp ${name}`), numRuns: RUNS, endOnFailure: true, ...(path ? { path } : {}) });
  if (details.failed)
    throw new Error(
      `replay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath} pnpm test test/contract-fuzz.test.ts -t 'MCP ${name}'\n` +
        `${fc.defaultReportMessage(details)}\n\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    );
}

describe('every agent tool keeps the MCP contract under generated calls', () => {
  it('the server lists the tools of the catalogue', () => {
    expect(listedTools.map((t) => t.name)).toEqual(TOOL_SPECS.map((t) => t.name));
  });

  for (const { name } of TOOL_SPECS) it(`MCP ${name}`, () => fuzzTool(name), 120_000);

  it('every tool answered at least one success', () => {
    const endings = mcpRunner.endings();
    expect(TOOL_SPECS.map((t) => t.name).filter((name) => !(endings.get(name) ?? []).includes('result ok'))).toEqual([]);
  });
});

describe('the run', () => {
  it('ran with the raised limits it was given (RateLimit-Limit is the catalogue limit × RATE_LIMIT_SCALE)', async () => {
    const res = await contract.request('/api/v1/categories', { headers: { 'x-forwarded-for': '198.51.100.200' } });
    const catalogue = ENDPOINTS.find((e) => e.operationId === 'listAppCategories')!.rateLimit!.limit;
    expect(res.headers.get('ratelimit-limit')).toBe(String(catalogue * Number(RATE_LIMIT_SCALE)));
  });
});
