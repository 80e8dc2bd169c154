// The system on a three-master Redis Cluster (REDIS_URL=redis+cluster://...): gateway, auth,
// sites, the sites worker, chat and realtime as built processes, fakes for the scraped site
// and Anthropic. A site submission reaches its site_update on a WebSocket; the submit limit
// answers 429; then the master holding a user's session key is killed: that user's requests
// get 503 while requests that need no key of it keep working, and after the master restarts
// (same port, node file and data) everything works again, queue and fan-out included
// (docs/decisions/021-redis-cluster-and-sentinel.md).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import WebSocket from 'ws';
import { createLogger, createRedis, queuePrefix, revocationKey, waitForRedis } from '@svc/service-kit';
import { eventually, startRedisCluster, type ServiceProcess, type TestRedisCluster } from '@svc/service-kit/testing';
import { startFakeAnthropic, startFakeWebsite } from './contract-system-fakes.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

jest.setTimeout(180_000);

const INTERNAL_TOKEN = 'cluster-internal-token-0123456789';
const IP_HASH_SECRET = 'cluster-ip-hash-secret-0123456789';

const system = createTestSystem();
let cluster: TestRedisCluster;
let gateway: ServiceProcess;
/** The processes a site_update passes through, for a failure's explanation. */
let pipeline: Record<string, ServiceProcess>;
let resend: FakeResend;
let website: Awaited<ReturnType<typeof startFakeWebsite>>;

beforeAll(async () => {
  cluster = await startRedisCluster();
  const anthropic = await startFakeAnthropic().then(system.track);
  website = await startFakeWebsite().then(system.track);
  resend = await system.resend();
  // At info: a stalled recovery is told by what the pipeline said before it (withLogs).
  const common = { REDIS_URL: cluster.url, LOG_LEVEL: 'info' };
  // The API and the worker share one schema (system.service would give each its own).
  const sitesDb = await system.database('sites');
  const sitesShared = {
    ...common,
    REDIS_PREFIX: system.redisPrefix,
    JWT_PUBLIC_KEY: system.keys.publicKey,
    SITES_DATABASE_URL: sitesDb.url,
    ANTHROPIC_API_KEY: 'sk-ant-cluster',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    OUTBOUND_ALLOW_HOSTS: website.host,
  };
  const slow = { healthTimeoutMs: 60_000 };
  const [auth, sites, worker, chat] = await Promise.all([
    system.service('auth', common),
    system.start('services/sites/dist/main.js', { ...sitesShared, IP_HASH_SECRET, SITES_LIST_CACHE_MS: '0' }, slow),
    system.start('services/sites/dist/worker/main.js', sitesShared, slow),
    system.service('chat', { ...common, IP_HASH_SECRET, INTERNAL_TOKEN }),
  ]);
  const realtime = await system.service('realtime', { ...common, CHAT_URL: chat!.url, INTERNAL_TOKEN });
  pipeline = { sites: sites!, worker: worker!, realtime };
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth!.url,
    SITES_URL: sites!.url,
    CHAT_URL: chat!.url,
    REALTIME_URL: realtime.url,
    TRUST_PROXY: 'loopback',
  });
}, 180_000);

afterAll(async () => {
  await system.stop().finally(() => cluster?.close());
}, 120_000);

let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter}`;

async function api(path: string, init: { method?: string; body?: unknown; ip?: string; cookie?: string } = {}) {
  const headers: Record<string, string> = { 'x-forwarded-for': init.ip ?? freshIp() };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.cookie) headers.cookie = init.cookie;
  const res = await fetch(`${gateway.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body: body as { [k: string]: unknown; site?: { id: string } } };
}

interface SocketEvent {
  event: string;
  payload: { id?: string };
}

async function openSocket() {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/api/ws`, {
    headers: { 'x-forwarded-for': freshIp() },
  });
  const events: SocketEvent[] = [];
  socket.on('message', (data) => events.push(JSON.parse(String(data)) as SocketEvent));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, events };
}

/**
 * `step`, and when it fails, the error with the last log lines of the processes a
 * site_update passes through: a recovery that stalls is only understood from what sites,
 * the worker and realtime said meanwhile: a scrape job left waiting, for example, means the
 * scrape Worker is parked on an ioredis promise that never settles (the kind
 * patches/ioredis@6.0.0.patch fixes; docs/decisions/022-ioredis-cluster-patch.md).
 */
async function withLogs<T>(step: () => Promise<T>, context: string): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const tails = Object.entries(pipeline).map(
      ([name, proc]) => `--- ${name} (last lines) ---\n${proc.output().trimEnd().split('\n').slice(-30).join('\n')}`,
    );
    throw new Error(`${(err as Error).message} (${context})\n${tails.join('\n')}`, { cause: err });
  }
}

/**
 * Where a site's scrape job stands in BullMQ, read from the cluster: no job (never queued),
 * waiting, active, or done (then the event was lost on its way to the WebSocket).
 */
async function scrapeJobReport(siteId: string): Promise<string> {
  const redis = createRedis(cluster.url, createLogger('cluster-test', 'silent'), { name: 'report' });
  try {
    await waitForRedis(redis);
    const queue = `${queuePrefix(system.redisPrefix, redis)}:scrape`;
    const [job, waiting, active] = await Promise.all([
      redis.hgetall(`${queue}:scrape-${siteId}`),
      redis.lrange(`${queue}:wait`, 0, -1),
      redis.lrange(`${queue}:active`, 0, -1),
    ]);
    const { data: _data, opts: _opts, ...fields } = job;
    return `scrape job ${JSON.stringify(fields)}; waiting ${JSON.stringify(waiting)}; active ${JSON.stringify(active)}`;
  } catch (err) {
    return `scrape job not read: ${(err as Error).message}`;
  } finally {
    redis.disconnect();
  }
}

/** Submits a page of the fake site and waits for its site_update on a fresh WebSocket. */
async function submitAndSeeUpdate(path: string) {
  const { socket, events } = await openSocket();
  try {
    const submitted = await api('/api/sites', { method: 'POST', body: { url: website.url(path) } });
    expect(submitted.status).toBe(201);
    const id = submitted.body.site!.id;
    await eventually(async () => (events.some((e) => e.event === 'site_update' && e.payload.id === id) ? true : undefined), { ms: 60_000, everyMs: 250 }).catch(
      async (err: Error) => {
        throw new Error(`${err.message}; site ${id}: ${await scrapeJobReport(id)}`);
      },
    );
    return id;
  } finally {
    socket.close();
  }
}

async function login(email: string) {
  const ip = freshIp();
  const sent = await api('/api/auth/send-code', { method: 'POST', body: { email }, ip });
  expect(sent.status).toBe(200);
  const verified = await api('/api/auth/verify', {
    method: 'POST',
    body: { email, code: resend.lastCodeFor(email) },
    ip,
  });
  expect(verified.status).toBe(200);
  const cookie = verified.headers.get('set-cookie')!.split(';')[0]!;
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string };
  return { cookie, jti: claims.jti };
}

describe('the system on a three-master Redis Cluster', () => {
  it('a site submission reaches its site_update on a WebSocket', async () => {
    await submitAndSeeUpdate('/cluster-first');
  });

  it('the submit limit (5 a minute per IP) answers 429 with Retry-After', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await api('/api/sites', { method: 'POST', ip, body: { url: website.url(`/limit-${i}`) } })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    const again = await api('/api/sites', { method: 'POST', ip, body: { url: website.url('/limit-x') } });
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ error: 'Too many requests' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a master down: 503 for requests that need its slots, the rest served; recovery after its restart', async () => {
    const user = await login('cluster.user@example.com');
    expect((await api('/api/auth/me', { cookie: user.cookie })).status).toBe(200);
    const victim = await cluster.nodeOf(revocationKey(system.redisPrefix, user.jti));

    await cluster.stopNode(victim, 'SIGKILL');
    // The session check needs the revocation key, which lives on the dead master: 503, fast.
    const started = Date.now();
    const down = await api('/api/auth/me', { cookie: user.cookie });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(15_000);
    // Still down a while later (the other masters have marked it failed by now).
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api('/api/auth/me', { cookie: user.cookie })).status).toBe(503);
    // A request whose Redis keys are elsewhere (or that has none) is served meanwhile.
    expect((await api('/api/sites')).status).toBe(200);

    await cluster.resumeNode(victim);
    await cluster.waitForState('ok');
    await eventually(async () => ((await api('/api/auth/me', { cookie: user.cookie })).status === 200 ? true : undefined), { ms: 60_000, everyMs: 250 });
    // Queues, workers and the fan-out came back too.
    await withLogs(() => submitAndSeeUpdate('/cluster-after-restart'), `master on port ${victim.port} was restarted`);
  });
});
