// The MCP server at /mcp, as an agent meets it: the SDK's own Client over Streamable HTTP,
// through the gateway, to every built process on real PostgreSQL and Redis, with loopback
// fakes of Anthropic, the CAPTCHA verifier and Resend. It lists the six tools, calls each
// with real data, and checks what goes wrong: bad arguments and unknown tools (JSON-RPC
// errors), refusals of the API (tool errors), the translate limit reached through MCP and
// counted against the agent's own address, a browser origin that is not allowed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract } from './contract-harness.js';
import { startFakes } from './contract-system-fakes.js';
import { login } from './login.js';
import { createTestSystem } from './system-processes.js';

const PUBLIC_BASE_URL = 'https://svc.mcp-system.test';
const ALLOWED_ORIGIN = 'https://tools.mcp-system.test';
const CAPTCHA_SECRET = 'mcp-captcha-secret';
const CAPTCHA_TOKEN = 'mcp-good-token';
const IP_HASH_SECRET = 'mcp-ip-hash-secret-0123456789';

const system = createTestSystem();
let gateway: ServiceProcess;
let contract: Contract;
let websiteUrl: (path: string) => string;
const clients: Client[] = [];

let ipCounter = 0;
/** A client address of its own (documentation range), so per-IP limits stay per test. */
const freshIp = () => `203.0.113.${++ipCounter}`;

/** An MCP client connected through the gateway, as an agent at `ip`. */
async function agent(ip = freshIp()): Promise<Client> {
  const client = new Client({ name: 'svc-system-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
    requestInit: { headers: { 'x-forwarded-for': ip } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

/** A JSON-RPC POST to /mcp without the SDK (for what a client library would never send). */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-forwarded-for': freshIp(),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

beforeAll(async () => {
  const { resend, anthropic, captcha, website } = await startFakes(system, { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
  websiteUrl = website.url;
  const [authDb, appStoreDb, sitesDb, chatDb] = await Promise.all(
    (['auth', 'app-store', 'sites', 'chat'] as const).map((s) => system.database(s)),
  );
  const common = { REDIS_PREFIX: system.redisPrefix, JWT_PUBLIC_KEY: system.keys.publicKey };
  const start = (entry: string, env: Record<string, string>) => system.start(entry, env, { healthTimeoutMs: 60_000 });
  const [auth, appStore, sites, chat, translate] = await Promise.all([
    start('services/auth/dist/main.js', {
      ...common,
      AUTH_DATABASE_URL: authDb!.url,
      JWT_PRIVATE_KEY: system.keys.privateKey,
      RESEND_API_KEY: 're_mcp',
      RESEND_BASE_URL: resend.baseUrl,
      EMAIL_FROM: 'Svc <login@svc.test>',
    }),
    start('services/app-store/dist/main.js', { ...common, APP_STORE_DATABASE_URL: appStoreDb!.url, APP_STORE_LISTING_CACHE_MS: '0', IP_HASH_SECRET }),
    start('services/sites/dist/main.js', {
      ...common,
      SITES_DATABASE_URL: sitesDb!.url,
      IP_HASH_SECRET,
      PUBLIC_BASE_URL,
      OUTBOUND_ALLOW_HOSTS: website.host,
      SITES_LIST_CACHE_MS: '0',
      SITES_COUNT_CACHE_MS: '0',
      CAPTCHA_SECRET_KEY: CAPTCHA_SECRET,
      CAPTCHA_VERIFY_URL: captcha.verifyUrl,
    }),
    start('services/chat/dist/main.js', { ...common, CHAT_DATABASE_URL: chatDb!.url, IP_HASH_SECRET, INTERNAL_TOKEN: 'mcp-internal-token-0123456789' }),
    start('services/translate/dist/main.js', {
      ...common,
      ANTHROPIC_API_KEY: 'sk-ant-mcp',
      ANTHROPIC_BASE_URL: anthropic.baseURL,
      TRANSLATE_AI_MAX_RETRIES: '0',
    }),
  ]);
  const mcp = await start('services/mcp/dist/main.js', {
    APP_STORE_URL: appStore!.url,
    SITES_URL: sites!.url,
    CHAT_URL: chat!.url,
    TRANSLATE_URL: translate!.url,
    MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
  });
  gateway = await start('gateway/dist/main.js', {
    AUTH_URL: auth!.url,
    APP_STORE_URL: appStore!.url,
    SITES_URL: sites!.url,
    CHAT_URL: chat!.url,
    TRANSLATE_URL: translate!.url,
    MCP_URL: mcp.url,
    PUBLIC_BASE_URL,
    // Each agent names its address (X-Forwarded-For), as a proxy in front would.
    TRUST_PROXY: 'loopback',
  });
  contract = await loadContract(gateway.url);
  // Real data for the tools to find: an app, a chat message.
  const author = await login((path, init) => contract.request(path, { ...init, headers: { 'x-forwarded-for': freshIp() } }), resend, 'author@mcp-system.test');
  const app = await contract.request('/api/v1/apps', {
    method: 'POST',
    cookie: author.cookie,
    headers: { 'x-forwarded-for': freshIp() },
    body: { slug: 'mcp-chess', name: 'MCP Chess', url: 'https://chess.mcp-system.test', description: 'Chess for agents and people' },
  });
  expect(app.status).toBe(201);
  const message = await contract.request('/api/messages', {
    method: 'POST',
    headers: { 'x-forwarded-for': freshIp() },
    body: { content: 'Hello from the MCP system test' },
  });
  expect(message.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await system.stop();
}, 60_000);

describe('an MCP client through the gateway', () => {
  it('initializes and lists the six tools of /.well-known/mcp.json, which names /mcp in remotes', async () => {
    const client = await agent();
    expect(client.getServerVersion()).toMatchObject({ name: 'svc-platform' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/rate limits/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_sites', 'submit_site', 'search_apps', 'get_app', 'translate', 'read_chat']);
    const manifest = (await (await fetch(`${gateway.url}/.well-known/mcp.json`)).json()) as {
      remotes: unknown;
      tools: Array<Record<string, unknown>>;
    };
    expect(manifest.remotes).toEqual([{ type: 'streamable-http', url: `${PUBLIC_BASE_URL}/mcp` }]);
    expect(tools).toEqual(manifest.tools.map(({ _meta: _http, ...tool }) => tool));
  });

  it('submit_site: refused with the CAPTCHA explained without a token, created with one', async () => {
    const client = await agent();
    const url = websiteUrl('/mcp/submitted');
    const refused = (await client.callTool({ name: 'submit_site', arguments: { url } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Missing or invalid CAPTCHA token \(403\)\. This deployment checks a CAPTCHA/);
    const created = (await client.callTool({ name: 'submit_site', arguments: { url, captchaToken: CAPTCHA_TOKEN } })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ isNew: true, site: { url } });
    expect(JSON.parse(textOf(created))).toEqual(created.structuredContent);
    // An argument JSON Schema cannot judge (a URL's form) is the endpoint's 400, a tool error.
    const invalid = (await client.callTool({ name: 'submit_site', arguments: { url: 'not a url', captchaToken: CAPTCHA_TOKEN } })) as CallToolResult;
    expect(invalid).toMatchObject({ isError: true, _meta: { status: 400 } });
  });

  it('search_sites finds the submitted site', async () => {
    const client = await agent();
    const id = ((await client.callTool({ name: 'submit_site', arguments: { url: websiteUrl('/mcp/findable'), captchaToken: CAPTCHA_TOKEN } })) as CallToolResult)
      .structuredContent as { site: { id: string } };
    const found = (await client.callTool({ name: 'search_sites', arguments: { sort: 'recent', page: 1 } })) as CallToolResult;
    expect(found.isError).toBeFalsy();
    const sites = (found.structuredContent as { sites: Array<{ id: string }> }).sites;
    expect(sites.map((s) => s.id)).toContain(id.site.id);
  });

  it('search_apps and get_app read the app store; an unknown slug is the API’s 404', async () => {
    const client = await agent();
    const listed = (await client.callTool({ name: 'search_apps', arguments: { q: 'chess', limit: 10 } })) as CallToolResult;
    expect((listed.structuredContent as { apps: Array<{ slug: string }> }).apps.map((a) => a.slug)).toEqual(['mcp-chess']);
    const app = (await client.callTool({ name: 'get_app', arguments: { slug: 'mcp-chess' } })) as CallToolResult;
    expect(app.structuredContent).toMatchObject({ app: { slug: 'mcp-chess', name: 'MCP Chess' } });
    for (const slug of ['no-such-app', '..', 'a/b']) {
      const missing = (await client.callTool({ name: 'get_app', arguments: { slug } })) as CallToolResult;
      expect({ slug, result: missing }).toMatchObject({ slug, result: { isError: true, _meta: { status: 404 } } });
    }
  });

  it('translate translates through the AI provider', async () => {
    const client = await agent();
    const result = (await client.callTool({ name: 'translate', arguments: { text: 'Good morning, how are you today?', targetLang: 'de' } })) as CallToolResult;
    expect(result.structuredContent).toEqual({ translated: '[German] Good morning, how are you today?', detectedLang: 'en' });
  });

  it('read_chat reads the chat room', async () => {
    const client = await agent();
    const result = (await client.callTool({ name: 'read_chat', arguments: { limit: 10 } })) as CallToolResult;
    const messages = (result.structuredContent as { messages: Array<{ content: string }> }).messages;
    expect(messages.map((m) => m.content)).toContain('Hello from the MCP system test');
  });
});

describe('what goes wrong', () => {
  it('bad arguments are JSON-RPC "invalid params" naming the argument, never a transport failure', async () => {
    const client = await agent();
    for (const [args, problem] of [
      [{ text: 'Hello' }, /targetLang: required/],
      [{ text: 'Hello', targetLang: 'xx' }, /targetLang: must be one of/],
      [{ text: 'x'.repeat(2001), targetLang: 'ja' }, /text: must NOT have more than 2000 characters/],
      [{ text: 5, targetLang: 'ja' }, /text: must be string/],
      [{ text: 'Hello', targetLang: 'ja', tone: 'warm' }, /tone: not an argument of this tool/],
    ] as const) {
      const error = await client.callTool({ name: 'translate', arguments: args }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect({ code: (error as McpError).code, message: (error as McpError).message }).toEqual({
        code: ErrorCode.InvalidParams,
        message: expect.stringMatching(problem),
      });
    }
    // The client is still usable: nothing broke on the way.
    expect((await client.listTools()).tools).toHaveLength(6);
  });

  it('an unknown tool is JSON-RPC "invalid params" listing the tools', async () => {
    const client = await agent();
    const error = (await client.callTool({ name: 'delete_everything', arguments: {} }).catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/Unknown tool: delete_everything\. The tools are search_sites, /);
  });

  it('text the API refuses (a NUL, a lone surrogate) is the tool’s error, not the transport’s', async () => {
    const client = await agent();
    const result = (await client.callTool({ name: 'translate', arguments: { text: 'a\u0000b', targetLang: 'ja' } })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, _meta: { status: 400 } });
    // A lone surrogate in a path or query argument reaches the endpoint as bytes that are not UTF-8.
    for (const args of [{ name: 'get_app', arguments: { slug: '\ud800' } }, { name: 'search_sites', arguments: { search: 'x\udc00' } }]) {
      const refused = (await client.callTool(args)) as CallToolResult;
      expect({ args, result: refused }).toMatchObject({ args, result: { isError: true, _meta: { status: 400 } } });
    }
  });

  it('the translate limit reached through MCP is a tool error saying when to retry, counted against the agent', async () => {
    const ip = freshIp();
    const client = await agent(ip);
    // Text without letters comes back as it is (no AI): 20 quick calls, the catalogue's limit.
    for (let i = 0; i < 20; i++) {
      const ok = (await client.callTool({ name: 'translate', arguments: { text: `${i} 123`, targetLang: 'ja' } })) as CallToolResult;
      expect({ i, isError: ok.isError }).toEqual({ i, isError: undefined });
    }
    const limited = (await client.callTool({ name: 'translate', arguments: { text: '21 123', targetLang: 'ja' } })) as CallToolResult;
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/^Rate limit reached: Too many requests \(429\)\. Retry after \d+ s \(at \d{4}-\d\d-\d\dT/);
    expect((limited._meta as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    // The agent's own address was counted (REST from it is limited too), not the MCP server's:
    // another agent still translates.
    const rest = await contract.request('/api/translate', { method: 'POST', headers: { 'x-forwarded-for': ip }, body: { text: '123', targetLang: 'ja' } });
    expect(rest.status).toBe(429);
    const other = (await (await agent()).callTool({ name: 'translate', arguments: { text: '123', targetLang: 'ja' } })) as CallToolResult;
    expect(other.isError).toBeUndefined();
  }, 60_000);

  it('refuses a browser origin that is not allowed (403), serves an allowed one with CORS', async () => {
    const refused = await post(INITIALIZE, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/Origin/) } });
    const allowed = await post(INITIALIZE, { origin: ALLOWED_ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(await allowed.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'svc-platform' } } });
    const preflight = await fetch(`${gateway.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/);
    const evilPreflight = await fetch(`${gateway.url}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(evilPreflight.status).toBe(403);
  });

  it('answers what no MCP client sends with JSON-RPC errors and 4xx, never a 5xx', async () => {
    const notJson = await post('{"jsonrpc": ');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: ErrorCode.ParseError } });
    const batch = await post([INITIALIZE, { ...INITIALIZE, id: 2 }]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/batches/) } });
    const notRpc = await post({ hello: 'world' });
    expect(notRpc.status).toBe(400);
    const wrongAccept = await post(INITIALIZE, { accept: 'text/html' });
    expect(wrongAccept.status).toBe(406);
    const tooLarge = await post({ ...INITIALIZE, padding: 'x'.repeat(70_000) });
    expect(tooLarge.status).toBe(413);
    const get = await fetch(`${gateway.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    // Beside the one path, the gateway keeps the segment (no page, no upstream).
    for (const path of ['/mcp/', '/MCP', '/mcp/x']) expect([path, (await fetch(`${gateway.url}${path}`, { method: 'POST' })).status]).toEqual([path, 404]);
  });
});
