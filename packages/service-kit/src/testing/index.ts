// Test support: every test file gets its own PostgreSQL schema and Redis key prefix,
// so files run in parallel and repeatedly against the one real PostgreSQL and Redis.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { scanTargets, type Redis } from '../redis/redis.js';
import { resolveDatabaseTarget, databaseTargetToUrl, type DatabaseTarget } from '../data/database-url.js';
import { applyMigrationSql, dropSchema, ensureDatabaseAndSchema } from '../data/migrations.js';

export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_test';
export const TEST_REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const suffix = () => randomBytes(5).toString('hex');

export interface TestDatabase {
  target: DatabaseTarget;
  url: string;
  drop: () => Promise<void>;
}

/**
 * A fresh schema with the service's migrations applied, on TEST_DATABASE_URL or on `url`
 * (a throwaway primary of the replica harness).
 */
export async function createTestDatabase(
  migrationsDir: string,
  options: { url?: string } = {},
): Promise<TestDatabase> {
  const base = resolveDatabaseTarget(undefined, options.url ?? TEST_DATABASE_URL, 'public');
  const target = { ...base, schema: `t_${suffix()}` };
  await ensureDatabaseAndSchema(target);
  await applyMigrationSql(target, migrationsDir);
  return { target, url: databaseTargetToUrl(target), drop: () => dropSchema(target) };
}

export const testRedisPrefix = () => `test:${suffix()}:`;

/** Deletes every key under a test prefix (on each master of a cluster: SCAN is per node). */
export async function deleteRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  for (const node of scanTargets(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      // One key per DEL: keys of one node may still sit in different slots.
      if (keys.length > 0) await Promise.all(keys.map((k) => node.del(k)));
    } while (cursor !== '0');
  }
}

/** A throwaway ES256 key pair (PEM), as auth uses to sign sessions. */
export function generateTestKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { startFakeResend, type SentEmail } from './fake-resend.js';

export { freePort, spawnService, waitForOk, type ServiceProcess } from './process-harness.js';
export { deadRedis } from './dead-redis.js';
export {
  AUDIT_LOG_APPEND_ONLY,
  AUDIT_LOG_TRIGGER_REFUSALS,
  auditLogProbeFacts,
  auditLogTriggerRefusals,
  probeAuditLogRoles,
  type AuditLogProbeFacts,
  type AuditLogRoleProbe,
} from './audit-log-probe.js';
export {
  startRedisCluster,
  type RedisClusterNode,
  type TestRedisCluster,
} from './redis-cluster-harness.js';
export { overrideCatalogueLimits } from './catalogue-override.js';
export {
  startReplicaCluster,
  type TestPostgresNode,
  type TestReplicaCluster,
} from './replica-harness.js';

/**
 * Polls `probe` until it answers something other than `undefined`, and returns that; throws
 * naming `what` when `ms` pass first. For tests that wait on another process or on time.
 */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  { ms = 20_000, everyMs = 100, what = 'the condition' }: { ms?: number; everyMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Deletes a test prefix's keys through a short-lived client (for tests of spawned processes). */
export async function clearRedisPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    await deleteRedisPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
