import { describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { SHUTDOWN_MARGIN_MS, startService } from '../src/process/lifecycle.js';
import { createLogger } from '../src/ops/logger.js';
import { spawnService } from '../src/testing/process-harness.js';
import { createRedis } from '../src/redis/redis.js';
import { closeRedis } from '../src/process/runtime.js';

const logger = createLogger('test', 'silent');

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path, host: '127.0.0.1', agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('startService ops listener', () => {
  it('serves the ops handler on its own port beside the public one, and closes it on stop', async () => {
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      handler: (_req, res) => void res.end('public'),
      ops: { port: 0, handler: (_req, res) => void res.end('ops') },
    });
    const opsPort = service.ops!.port;
    expect(opsPort).not.toBe(service.port);
    expect(await get(service.port, '/metrics')).toEqual({ status: 200, body: 'public' });
    expect(await get(opsPort, '/metrics')).toEqual({ status: 200, body: 'ops' });
    await service.stop();
    await expect(get(opsPort, '/metrics')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fails to start, naming OPS_PORT, when the ops port is taken (and frees the public one)', async () => {
    const taken = http.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(
        startService({
          name: 'test',
          port: 0,
          host: '127.0.0.1',
          logger,
          handleSignals: false,
          handler: (_req, res) => void res.end(),
          ops: { port, handler: (_req, res) => void res.end() },
        }),
      ).rejects.toThrow(new RegExp(`OPS_PORT ${port}`));
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

describe('startService graceful stop', () => {
  it('finishes in-flight requests, refuses new ones, then closes resources', async () => {
    const closed: string[] = [];
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      handler: (req, res) => {
        setTimeout(() => res.end(`done ${req.url}`), req.url === '/slow' ? 300 : 0);
      },
      resources: [async () => void closed.push('db'), () => void closed.push('redis')],
    });
    const inFlight = get(service.port, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const stopped = service.stop();
    await expect(get(service.port, '/new')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    expect(await inFlight).toEqual({ status: 200, body: 'done /slow' });
    await stopped;
    expect(closed).toEqual(['db', 'redis']);
  });

  it('cuts requests that outlive the shutdown timeout', async () => {
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      shutdownTimeoutMs: 100,
      handler: () => undefined, // never answers
    });
    const hanging = get(service.port, '/hang').catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(String(await hanging)).toMatch(/socket hang up|ECONNRESET/);
  });

  it('runs the drain step returned by onServer after the listener closes, before resources', async () => {
    const order: string[] = [];
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      handler: (_req, res) => res.end('ok'),
      onServer: (server) => async () => {
        order.push(server.listening ? 'drain while listening' : 'drain after close');
      },
      resources: [() => void order.push('resources')],
    });
    await service.stop();
    expect(order).toEqual(['drain after close', 'resources']);
  });
});

/** A logger whose lines are kept (parsed) for assertions. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('shutdown bounds', () => {
  it('abandons a step still running when the timeout is used up, and the steps after it', async () => {
    const { logger: log, lines } = capturingLogger();
    const closed: string[] = [];
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger: log,
      handleSignals: false,
      shutdownTimeoutMs: 400,
      handler: (_req, res) => res.end('ok'),
      resources: [
        { name: 'quick', close: () => void closed.push('quick') },
        { name: 'stuck', close: () => new Promise(() => {}) },
        { name: 'later', close: () => void closed.push('later') },
      ],
    });
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(400 + 200);
    expect(closed).toEqual(['quick']);
    expect(lines).toContainEqual(expect.objectContaining({ step: 'stuck', skipped: ['later'] }));
  });

  it('closes a queue client that is waiting to reconnect at once (QUIT would wait behind its offline queue)', async () => {
    const redis = createRedis('redis://127.0.0.1:1', logger, { forQueues: true });
    await new Promise((r) => setTimeout(r, 100)); // refused once, now between retries
    void redis.get('waiting').catch(() => {}); // a command in the offline queue, as BullMQ leaves
    const started = Date.now();
    await closeRedis(redis);
    expect(Date.now() - started).toBeLessThan(500);
    let attempts = 0;
    redis.on('reconnecting', () => attempts++);
    await new Promise((r) => setTimeout(r, 700));
    expect(attempts).toBe(0);
  });

  it('the first SIGTERM ends a process whose stop hangs, after the timeout and margin, naming the step', async () => {
    const proc = await spawnService({
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      entry: 'test/fixtures/stuck-stop.ts',
      source: true,
    });
    try {
      for (let i = 0; i < 200 && !proc.output().includes('ready'); i++)
        await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      proc.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        proc.exited,
        new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 5000))),
      ]);
      clearTimeout(timer);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(300 + SHUTDOWN_MARGIN_MS - 50);
      expect(proc.output()).toMatch(/"step":"the stuck step".*shutdown deadline passed/);
    } finally {
      proc.child.kill('SIGKILL');
    }
  });
});
