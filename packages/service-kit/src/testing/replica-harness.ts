// Test support: a throwaway PostgreSQL primary and its streaming replica, each on a loopback
// port of its own with its data folder under one temporary folder, so read-replica tests
// never touch the machine's own PostgreSQL. The sequence is an operator's: `initdb` (as
// the `postgres` OS user when run as root: PostgreSQL refuses to run as root),
// `wal_level=replica` and replication allowed from loopback, `pg_ctl start`, then
// `pg_basebackup -R` for the replica and `pg_ctl start` it; streaming within a second or two.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parseLsn } from '../data/lsn.js';
import { freePort } from './process-harness.js';

const run = promisify(execFile);

/** Where the PostgreSQL server programs are: PG_BIN_DIR, the Debian folder, else the PATH. */
function binDir(): string | undefined {
  const candidates = [process.env.PG_BIN_DIR, '/usr/lib/postgresql/15/bin'];
  return candidates.find((d) => d && existsSync(join(d, 'initdb')));
}

const bin = (name: string) => {
  const dir = binDir();
  return dir ? join(dir, name) : name;
};

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server program, as the postgres OS user when we are root. */
async function pgRun(program: string, args: string[], cwd: string): Promise<void> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', bin(program), ...args]]
    : [bin(program), args];
  try {
    await run(file, argv, { cwd, timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${e.stderr || e.message}`, {
      cause: err,
    });
  }
}

export interface TestPostgresNode {
  port: number;
  dataDir: string;
  /** `postgresql://postgres@127.0.0.1:<port>/<database>` */
  url: string;
}

export interface TestReplicaCluster {
  primary: TestPostgresNode;
  replica: TestPostgresNode;
  database: string;
  /** `pg_ctl stop -m immediate` of the replica (a crash); `startReplica` brings it back. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** `pg_wal_replay_pause()` / `pg_wal_replay_resume()` on the replica. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the replica has replayed what the primary has written now. */
  waitForReplay(ms?: number): Promise<void>;
  /** One query on a node, on a short-lived connection. */
  query<R extends pg.QueryResultRow>(
    node: TestPostgresNode,
    sql: string,
    params?: unknown[],
  ): Promise<R[]>;
  /** Stops both servers and removes their folders (afterAll). */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function query<R extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    await sleep(50);
  }
}

/**
 * Starts a primary and a streaming replica of it; `database` is created on the primary
 * (and so exists on the replica). Call `stop()` in afterAll.
 */
export async function startReplicaCluster(
  opts: { database?: string } = {},
): Promise<TestReplicaCluster> {
  const database = opts.database ?? 'svc_test';
  const root = mkdtempSync(join(tmpdir(), 'pg-replicas-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
  }
  const primaryPort = await freePort();
  let replicaPort = await freePort();
  while (replicaPort === primaryPort) replicaPort = await freePort();
  const node = (name: string, port: number): TestPostgresNode => ({
    port,
    dataDir: join(root, name),
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
  });
  const primary = node('primary', primaryPort);
  const replica = node('replica', replicaPort);
  const adminUrl = (n: TestPostgresNode) => `postgresql://postgres@127.0.0.1:${n.port}/postgres`;
  const log = (n: TestPostgresNode) => `${n.dataDir}.log`;
  const running = new Set<TestPostgresNode>();

  const start = async (n: TestPostgresNode) => {
    await pgRun('pg_ctl', ['-D', n.dataDir, '-l', log(n), '-w', '-t', '30', 'start'], root);
    running.add(n);
  };
  const stopNode = async (n: TestPostgresNode, mode: 'fast' | 'immediate') => {
    if (!running.has(n)) return;
    running.delete(n);
    await pgRun('pg_ctl', ['-D', n.dataDir, '-m', mode, '-w', 'stop'], root);
  };

  const cluster: TestReplicaCluster = {
    primary,
    replica,
    database,
    stopReplica: () => stopNode(replica, 'immediate'),
    async startReplica() {
      await start(replica);
      await until('the replica to stream again', 20_000, async () => {
        const rows = await query<{ n: number }>(
          adminUrl(primary),
          `SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`,
        );
        return rows[0]!.n > 0;
      });
    },
    async pauseReplay() {
      await query(adminUrl(replica), 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await query(adminUrl(replica), 'SELECT pg_wal_replay_resume()');
    },
    async waitForReplay(ms = 20_000) {
      const [now] = await query<{ lsn: string }>(
        adminUrl(primary),
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      const target = parseLsn(now!.lsn);
      await until('the replica to replay the primary', ms, async () => {
        const [row] = await query<{ lsn: string | null }>(
          adminUrl(replica),
          'SELECT pg_last_wal_replay_lsn()::text AS lsn',
        );
        return row!.lsn !== null && parseLsn(row!.lsn) >= target;
      });
    },
    query: (n, sql, params) => query(n.url, sql, params),
    async stop() {
      await stopNode(replica, 'immediate').catch(() => undefined);
      await stopNode(primary, 'fast').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    await pgRun(
      'initdb',
      ['-D', primary.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'],
      root,
    );
    appendFileSync(
      join(primary.dataDir, 'postgresql.conf'),
      [
        '',
        `port = ${primary.port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${root}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'max_connections = 100',
        // Throwaway data: no need to wait for the disk.
        'fsync = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    appendFileSync(
      join(primary.dataDir, 'pg_hba.conf'),
      'host replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n',
    );
    await start(primary);
    await query(adminUrl(primary), `CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    await pgRun(
      'pg_basebackup',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        replica.dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
      ],
      root,
    );
    // The copied postgresql.conf names the primary's port: the last setting wins.
    appendFileSync(join(replica.dataDir, 'postgresql.conf'), `\nport = ${replica.port}\n`);
    await cluster.startReplica();
    await cluster.waitForReplay();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
