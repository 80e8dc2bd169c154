// Test support: a throwaway Redis Cluster of masters without replicas on loopback ports,
// made of `redis-server --cluster-enabled yes` child processes and `redis-cli --cluster
// create`. A master can be killed and restarted on its port with its node file (and its
// append-only file), as an operator restarting a crashed node would.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './process-harness.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  port: number;
  /** The cluster bus port (given explicitly: port + 10000 may not exist). */
  busPort: number;
  dir: string;
  process?: ChildProcess;
  /** SIGSTOPped: alive, but answers nothing. */
  paused?: boolean;
}

export interface TestRedisCluster {
  nodes: readonly RedisClusterNode[];
  /** `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,...` for REDIS_URL. */
  url: string;
  /** The node serving `key`'s slot (as CLUSTER SLOTS says now). */
  nodeOf(key: string): Promise<RedisClusterNode>;
  /** SIGKILL (a crash) or SIGSTOP (a frozen host) of one master. */
  stopNode(node: RedisClusterNode, signal: 'SIGKILL' | 'SIGSTOP'): Promise<void>;
  /** Restarts a killed master (same port, node file and data) or resumes a stopped one. */
  resumeNode(node: RedisClusterNode): Promise<void>;
  /**
   * Unassigns `key`'s slot on every node and requires full coverage, so every node reports
   * `cluster_state:fail` while all of them run (what a client meets when it connects to a
   * cluster that is still settling); `restore` gives the slot back to its master.
   */
  uncoverSlot(key: string): Promise<{ restore(): Promise<void> }>;
  /**
   * Assigns `key`'s slot (holding no keys) to `to` on every node, as the last step of a slot
   * migration does; clients keep their old slot map until a MOVED answer tells them.
   * Returns the previous owner.
   */
  moveSlot(key: string, to: RedisClusterNode): Promise<RedisClusterNode>;
  /** Resolves once every running node reports `cluster_state:<state>`. */
  waitForState(state: 'ok' | 'fail', ms?: number): Promise<void>;
  /** Kills every node and removes their folders. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks one node a question on a short-lived connection; null when it does not answer. */
async function ask(port: number, ...args: (string | number)[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 1000,
    commandTimeout: 1000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/** `ask`, for a command that must answer OK. */
async function command(port: number, ...args: (string | number)[]): Promise<void> {
  const answer = await ask(port, ...args);
  if (answer !== 'OK') throw new Error(`${args.join(' ')} on ${port} answered ${JSON.stringify(answer)}`);
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export async function startRedisCluster(
  opts: { masters?: number; nodeTimeoutMs?: number } = {},
): Promise<TestRedisCluster> {
  const count = opts.masters ?? 3;
  const ports = await distinctFreePorts(count * 2);
  const nodes: RedisClusterNode[] = Array.from({ length: count }, (_, i) => ({
    port: ports[i]!,
    busPort: ports[count + i]!,
    dir: mkdtempSync(join(tmpdir(), 'redis-cluster-')),
  }));

  const launch = (node: RedisClusterNode) => {
    const child = spawn(
      'redis-server',
      [
        '--port', String(node.port),
        '--bind', '127.0.0.1',
        '--cluster-enabled', 'yes',
        '--cluster-port', String(node.busPort),
        '--cluster-config-file', join(node.dir, 'nodes.conf'),
        '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 2000),
        // Slots of a missing master fail; the others keep serving (docs/decisions/021-redis-cluster-and-sentinel.md).
        '--cluster-require-full-coverage', 'no',
        '--dir', node.dir,
        '--save', '',
        // Kept across a restart, as a production node with persistence would.
        '--appendonly', 'yes',
        '--appendfsync', 'always',
        '--daemonize', 'no',
        '--maxmemory-policy', 'noeviction',
      ],
      { stdio: 'ignore' },
    );
    child.on('error', () => {});
    node.process = child;
  };

  const waitForPing = async (node: RedisClusterNode, ms = 20_000) => {
    const until = Date.now() + ms;
    while ((await ask(node.port, 'PING')) !== 'PONG') {
      if (Date.now() > until) throw new Error(`redis-server on ${node.port} did not start`);
      await sleep(100);
    }
  };

  const alive = (n: RedisClusterNode) =>
    !!n.process && n.process.exitCode === null && n.process.signalCode === null;
  const running = () => nodes.filter((n) => alive(n) && !n.paused);

  const waitForState: TestRedisCluster['waitForState'] = async (state, ms = 60_000) => {
    const until = Date.now() + ms;
    for (;;) {
      const infos = await Promise.all(running().map((n) => ask(n.port, 'CLUSTER', 'INFO')));
      if (infos.every((i) => typeof i === 'string' && i.includes(`cluster_state:${state}`))) return;
      if (Date.now() > until) throw new Error(`Redis Cluster not ${state} after ${ms} ms: ${JSON.stringify(infos)}`);
      await sleep(200);
    }
  };

  const nodeOf: TestRedisCluster['nodeOf'] = async (key) => {
    for (const node of running()) {
      const slot = (await ask(node.port, 'CLUSTER', 'KEYSLOT', key)) as number | null;
      const ranges = (await ask(node.port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][] | null;
      if (slot === null || !ranges) continue;
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const owner = nodes.find((n) => n.port === range?.[2][1]);
      if (owner) return owner;
    }
    throw new Error(`no node serves the slot of ${key}`);
  };

  const close = async () => {
    for (const node of nodes) {
      const child = node.process;
      if (child && alive(node)) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(node.dir, { recursive: true, force: true });
    }
  };

  try {
    nodes.forEach(launch);
    await Promise.all(nodes.map((n) => waitForPing(n)));
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: 60_000 },
    );
    await waitForState('ok');
  } catch (err) {
    await close();
    throw err;
  }

  return {
    nodes,
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodeOf,
    async stopNode(node, signal) {
      const child = node.process;
      if (!child) throw new Error('node not running');
      if (signal === 'SIGKILL') {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      } else {
        child.kill('SIGSTOP');
        node.paused = true;
      }
    },
    async resumeNode(node) {
      if (alive(node)) {
        node.process!.kill('SIGCONT');
        node.paused = false;
        return;
      }
      launch(node);
      await waitForPing(node);
    },
    async uncoverSlot(key) {
      const owner = await nodeOf(key);
      const slot = (await ask(owner.port, 'CLUSTER', 'KEYSLOT', key)) as number;
      const everyNode = (...args: (string | number)[]) =>
        Promise.all(running().map((n) => command(n.port, ...args)));
      await everyNode('CONFIG', 'SET', 'cluster-require-full-coverage', 'yes');
      await everyNode('CLUSTER', 'DELSLOTS', slot);
      await waitForState('fail');
      return {
        async restore() {
          await command(owner.port, 'CLUSTER', 'ADDSLOTS', slot);
          await everyNode('CONFIG', 'SET', 'cluster-require-full-coverage', 'no');
          await waitForState('ok');
        },
      };
    },
    async moveSlot(key, to) {
      const from = await nodeOf(key);
      const slot = (await ask(to.port, 'CLUSTER', 'KEYSLOT', key)) as number;
      const id = (await ask(to.port, 'CLUSTER', 'MYID')) as string;
      // The new owner first, then the old one, then the rest (Redis's migration order).
      const order = [to, from, ...running().filter((n) => n !== to && n !== from)];
      for (const node of order) await command(node.port, 'CLUSTER', 'SETSLOT', slot, 'NODE', id);
      return from;
    },
    waitForState,
    close,
  };
}
