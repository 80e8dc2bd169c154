// REDIS_URL=redis+sentinel://...: createRedis asks a real Sentinel (redis-server --sentinel on
// a loopback port) for the master's address and talks to that master.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis as SingleRedis } from 'ioredis';
import { createLogger } from '../src/ops/logger.js';
import { Cluster, createRedis, waitForRedis, type Redis } from '../src/redis/redis.js';
import { freePort, testRedisPrefix } from '../src/testing/index.js';

const logger = createLogger('test', 'silent');
const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
const children: ChildProcess[] = [];
let masterPort = 0;
let sentinelPort = 0;
let redis: Redis | undefined;

async function pingable(port: number) {
  const until = Date.now() + 20_000;
  for (;;) {
    const probe = new SingleRedis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    const ok = await probe.connect().then(() => probe.ping()).then(() => true, () => false);
    probe.disconnect();
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing answers on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  masterPort = await freePort();
  sentinelPort = await freePort();
  const start = (args: string[]) => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    child.on('error', () => {});
    children.push(child);
  };
  start(['--port', String(masterPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
  await pingable(masterPort);
  // A sentinel rewrites its config file: it must be its own, writable.
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, `port ${sentinelPort}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor svcmaster 127.0.0.1 ${masterPort} 1\n`);
  start([conf, '--sentinel']);
  await pingable(sentinelPort);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  for (const child of children.reverse()) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('createRedis with redis+sentinel://', () => {
  it('finds the master through the sentinel and uses it', async () => {
    redis = createRedis(`redis+sentinel://127.0.0.1:${sentinelPort}/svcmaster`, logger, { name: 'sentinel-test' });
    expect(redis).not.toBeInstanceOf(Cluster);
    await waitForRedis(redis, 20_000);
    const key = `${testRedisPrefix()}sentinel`;
    await redis.set(key, 'through the sentinel', 'EX', 60);
    const direct = new SingleRedis({ port: masterPort });
    try {
      expect(await direct.get(key)).toBe('through the sentinel');
    } finally {
      direct.disconnect();
    }
  }, 30_000);
});
