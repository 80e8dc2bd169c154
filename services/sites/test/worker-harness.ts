// Shared by the worker tests: a fresh schema and Redis prefix, loopback fake websites, a
// fake Anthropic Messages API (called through the real SDK), the real BullMQ Workers of
// processors.ts, and a subscriber that collects published events.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queue, Worker } from 'bullmq';
import { Redis as IORedis } from 'ioredis';
import { newId } from '@svc/service-kit';
import {
  createEventPublisher,
  createLogger,
  createPgAdapter,
  createRedis,
  eventsChannel,
  waitForRedis,
  type Logger,
  type Redis,
} from '@svc/service-kit';
import {
  TEST_REDIS_URL,
  createTestDatabase,
  deleteRedisPrefix,
  testRedisPrefix,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { workerConfigSchema } from '../src/config.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { createPageFetcher } from '../src/clients/page-fetcher.js';
import { createAiTagger, type AiTagger } from '../src/clients/ai-tagger.js';
import { startProcessors } from '../src/worker/processors.js';
import { SCRAPE_QUEUE, TAG_QUEUE, createQueues, type QueueName } from '../src/worker/queues.js';

export const logger: Logger = createLogger('sites-worker-test', 'silent');
export const MIGRATIONS = new URL('../prisma/migrations', import.meta.url).pathname;

// ---- loopback websites -------------------------------------------------------------------

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FakeWebsite {
  port: number;
  /** `127.0.0.1:port`, for OUTBOUND_ALLOW_HOSTS. */
  host: string;
  url(path: string): string;
  route(path: string, handler: Handler): void;
  /** Paths (with query) requested so far. */
  requests: string[];
  connections(): number;
  close(): Promise<void>;
}

export async function startFakeWebsite(routes: Record<string, Handler> = {}): Promise<FakeWebsite> {
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(req.url ?? '/');
    const handler = table.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
  });
  server.on('connection', (socket) => {
    connections++;
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    host: `127.0.0.1:${port}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, handler) => void table.set(path, handler),
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const htmlPage =
  (body: string | Buffer, contentType = 'text/html; charset=utf-8', status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };

// ---- fake Anthropic Messages API ---------------------------------------------------------

export interface FakeAnthropic {
  baseURL: string;
  /** Request bodies of POST /v1/messages. */
  calls: Array<{
    model: string;
    system?: string;
    messages: Array<{ role: string; content: unknown }>;
    headers: http.IncomingHttpHeaders;
  }>;
  /** What the next calls answer: a text, or an HTTP status to fail with. */
  answer: (text: string) => void;
  failWith: (status: number) => void;
  close(): Promise<void>;
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  let reply: { text: string } | { status: number } = { text: '["工具"]' };
  const calls: FakeAnthropic['calls'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'no' } }),
        );
      }
      const parsed = JSON.parse(body) as FakeAnthropic['calls'][number] & { max_tokens: number };
      calls.push({ ...parsed, headers: req.headers });
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'fake failure' } }),
        );
      }
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${newId()}` });
      res.end(
        JSON.stringify({
          id: `msg_${newId()}`,
          type: 'message',
          role: 'assistant',
          model: parsed.model,
          content: [{ type: 'text', text: reply.text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 50, output_tokens: 10 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    calls,
    answer: (text) => void (reply = { text }),
    failWith: (status) => void (reply = { status }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const fakeAiTagger = (ai: FakeAnthropic): AiTagger =>
  createAiTagger({
    apiKey: 'test-key',
    baseURL: ai.baseURL,
    model: 'claude-haiku-4-5',
    maxRetries: 1,
    timeoutMs: 2000,
  });

// ---- database, queues, workers, events ---------------------------------------------------

export interface WorkerEnv {
  db: PrismaClient;
  /** SITES_DATABASE_URL of the test schema, for spawned worker processes. */
  databaseUrl: string;
  databaseTarget: TestDatabase['target'];
  redis: Redis;
  prefix: string;
  queues: Record<QueueName, Queue>;
  events: Array<{ event: string; payload: Record<string, unknown> }>;
  /** Starts the real Workers with the given settings (environment-variable names). */
  startWorkers(env: Record<string, string>, opts?: { ai?: AiTagger; db?: PrismaClient }): Worker[];
  insertSite(
    url: string,
    extra?: Partial<{
      siteType: 'website' | 'profile';
      socialPlatform: 'github' | 'x';
      socialUsername: string;
    }>,
  ): Promise<string>;
  close(): Promise<void>;
}

export async function createWorkerEnv(): Promise<WorkerEnv> {
  const testDb: TestDatabase = await createTestDatabase(MIGRATIONS);
  const db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 6 }) });
  const redis = createRedis(TEST_REDIS_URL, logger, { name: 'sites-worker-test', forQueues: true });
  await waitForRedis(redis);
  const prefix = testRedisPrefix();
  const queues = createQueues(redis, prefix);

  const events: WorkerEnv['events'] = [];
  const subscriber = new IORedis(TEST_REDIS_URL);
  await subscriber.subscribe(eventsChannel(prefix));
  subscriber.on('message', (_channel, message: string) => events.push(JSON.parse(message)));

  const workers: Worker[] = [];
  return {
    db,
    databaseUrl: testDb.url,
    databaseTarget: testDb.target,
    redis,
    prefix,
    queues,
    events,
    startWorkers(env, opts = {}) {
      const config = workerConfigSchema.parse({
        WORKER_LOCK_DURATION_MS: '5000',
        WORKER_STALLED_INTERVAL_MS: '5000',
        ...env,
      });
      const started = startProcessors({
        db: opts.db ?? db,
        redis,
        redisPrefix: prefix,
        events: createEventPublisher(redis, prefix),
        logger,
        fetcher: createPageFetcher(config),
        ai: opts.ai,
        tagQueue: queues[TAG_QUEUE],
        scrapeConcurrency: config.SCRAPE_CONCURRENCY,
        tagConcurrency: config.TAG_CONCURRENCY,
        lockDurationMs: config.WORKER_LOCK_DURATION_MS,
        stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS,
      });
      workers.push(...started);
      return started;
    },
    async insertSite(url, extra = {}) {
      const id = newId();
      const domain = new URL(url).hostname;
      await db.site.create({ data: { id, url, domain, title: domain, ...extra } });
      return id;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close(true)));
      await Promise.all([queues[SCRAPE_QUEUE].close(), queues[TAG_QUEUE].close()]);
      await subscriber.quit();
      await deleteRedisPrefix(redis, prefix);
      redis.disconnect();
      await db.$disconnect();
      await testDb.drop();
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The site once its tags are set (the end of the pipeline). */
export const waitForTagged = (db: PrismaClient, id: string, timeoutMs?: number) =>
  waitFor(
    async () => {
      const site = await db.site.findUnique({ where: { id } });
      return site && site.tags.length > 0 ? site : undefined;
    },
    timeoutMs,
    `site ${id} to be tagged`,
  );
