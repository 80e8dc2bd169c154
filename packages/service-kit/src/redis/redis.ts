// Redis clients. Request-path clients fail fast while Redis is down (no offline queue),
// so a request gets a 503 at once instead of hanging; they reconnect on their own, also
// when their connection goes silent without closing (keepAnswering).
// REDIS_URL names one node, a Redis Cluster or a Sentinel-managed master (parseRedisUrl);
// everything else in the project is typed against `Redis`, which is either client.
import {
  Cluster,
  Redis as SingleRedis,
  type ClusterOptions,
  type RedisOptions,
} from 'ioredis';
import type { Logger } from 'pino';

/** One node (or a Sentinel-managed master) or a Redis Cluster: what createRedis returns. */
export type Redis = SingleRedis | Cluster;
export { Cluster, SingleRedis };

interface Auth {
  username?: string;
  password?: string;
  tls: boolean;
}
interface HostPort {
  host: string;
  port: number;
}

/** What REDIS_URL names (docs/configuration.md, "Redis topologies"). */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | ({ kind: 'cluster'; nodes: HostPort[] } & Auth)
  | ({
      kind: 'sentinel';
      sentinels: HostPort[];
      /** The master's name as the sentinels know it (`sentinel monitor <name> ...`). */
      name: string;
      db: number;
      sentinelPassword?: string;
    } & Auth);

const MULTI_HOST = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/;

/**
 * Reads REDIS_URL. `redis://` / `rediss://`: one node (ioredis parses it). Several nodes:
 * `redis+cluster://[user:password@]host:port,host:port` (seed nodes of a Redis Cluster; the
 * client learns the rest) and `redis+sentinel://[user:password@]host:port,host:port/<master
 * name>[/<db>][?sentinelPassword=...]`; `rediss+...` for TLS. Throws on anything else.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const m = MULTI_HOST.exec(url);
  if (!m) {
    if (/^rediss?:\/\//.test(url) && URL.canParse(url)) return { kind: 'single', url };
    throw new Error('must be redis://, rediss://, redis+cluster:// or redis+sentinel://');
  }
  const [, scheme, kind, userinfo, hostList, path, query] = m;
  const auth: Auth = { tls: scheme === 'rediss' };
  if (userinfo) {
    const colon = userinfo.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
    if (user) auth.username = user;
    if (colon >= 0) auth.password = decodeURIComponent(userinfo.slice(colon + 1));
  }
  const defaultPort = kind === 'cluster' ? 6379 : 26379;
  const hosts = hostList!.split(',').map((h) => parseHostPort(h.trim(), defaultPort));
  if (kind === 'cluster') {
    if (path && path !== '/') throw new Error('redis+cluster:// takes no path (a cluster has one database)');
    return { kind: 'cluster', nodes: hosts, ...auth };
  }
  const [name, db = '0', ...rest] = (path ?? '').split('/').filter(Boolean);
  if (!name) throw new Error('redis+sentinel:// needs the master name as its path');
  if (rest.length > 0 || !/^\d+$/.test(db)) throw new Error('redis+sentinel:// path is /<master name>[/<db>]');
  const sentinelPassword = new URLSearchParams(query ?? '').get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: hosts,
    name: decodeURIComponent(name),
    db: Number(db),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    ...auth,
  };
}

function parseHostPort(text: string, defaultPort: number): HostPort {
  // [v6::addr]:port, host:port or host
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
  if (!m || port < 1 || port > 65535) throw new Error(`bad host:port "${text}"`);
  return { host: (m[1] ?? m[2])!, port };
}

/** True for a REDIS_URL that parseRedisUrl accepts (the config schema's check). */
export const isRedisUrl = (url: string): boolean => {
  try {
    parseRedisUrl(url);
    return true;
  } catch {
    return false;
  }
};

/** How often a request-path client checks that its connection still answers. */
export const REDIS_PING_EVERY_MS = 10_000;

/**
 * A connection gone half-open (a failover, a dropped route: nothing comes back, nothing
 * says so) tells ioredis nothing: every command times out, the request gets a 503, and
 * the connection stays for good. So the client PINGs every `everyMs` while ready; a PING
 * the command timeout ends (2 s) replaces the connection. Only request-path clients: they
 * never block, so a PING waits behind nothing. (Queue clients block on purpose; their
 * Workers have the watchdog, worker-watchdog.ts.)
 */
function keepAnswering(redis: Redis, logger: Logger, name: string | undefined, everyMs: number) {
  const timer = setInterval(() => {
    if (redis.status !== 'ready') return;
    redis.ping().catch((err: Error) => {
      if (!/timed out/i.test(err.message) || redis.status !== 'ready') return;
      logger.warn({ client: name }, 'redis connection silent: reconnecting');
      redis.disconnect(true);
    });
  }, everyMs).unref();
  redis.once('end', () => clearInterval(timer));
}

export function createRedis(
  url: string,
  logger: Logger,
  options: {
    name?: string;
    forQueues?: boolean;
    /** Request-path clients: the PING that finds a silent connection (0: none). */
    pingEveryMs?: number;
  } = {},
): Redis {
  const forQueues = options.forQueues ?? false;
  const common = {
    connectionName: options.name,
    // BullMQ requires a client that retries forever; request paths want fast failure.
    maxRetriesPerRequest: forQueues ? null : 1,
    connectTimeout: 3000,
    // A Redis that accepts the connection but never answers must not hang requests.
    // Queue clients are exempt: BullMQ blocks on purpose (BRPOPLPUSH and friends).
    commandTimeout: forQueues ? undefined : 2000,
  } satisfies RedisOptions;
  const retry = (times: number) => Math.min(times * 200, 2000);
  const target = parseRedisUrl(url);
  let redis: Redis;
  if (target.kind === 'cluster') {
    redis = new Cluster(target.nodes, {
      enableOfflineQueue: forQueues,
      clusterRetryStrategy: retry,
      // A master that restarts comes back on its address with its slots (no replica took
      // over): reconnect to it instead of waiting for a MOVED that never comes.
      clusterNodeRetryStrategy: retry,
      // While a master is unreachable its slots answer after a bounded number of tries
      // (about a second) with an error the error handler maps to 503.
      maxRedirections: 8,
      retryDelayOnFailover: 150,
      retryDelayOnClusterDown: 150,
      redisOptions: {
        ...common,
        username: target.username,
        password: target.password,
        ...(target.tls ? { tls: {} } : {}),
      },
    } satisfies ClusterOptions);
  } else if (target.kind === 'sentinel') {
    redis = new SingleRedis({
      ...common,
      sentinels: target.sentinels,
      name: target.name,
      db: target.db,
      username: target.username,
      password: target.password,
      sentinelPassword: target.sentinelPassword,
      ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      enableOfflineQueue: forQueues,
      retryStrategy: retry,
    });
  } else {
    redis = new SingleRedis(url, { ...common, enableOfflineQueue: forQueues, retryStrategy: retry });
  }
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger.warn({ err: err.message, client: options.name }, 'redis unavailable');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info({ client: options.name }, 'redis reconnected');
    down = false;
  });
  const pingEveryMs = options.pingEveryMs ?? REDIS_PING_EVERY_MS;
  if (!forQueues && pingEveryMs > 0) keepAnswering(redis, logger, options.name, pingEveryMs);
  return redis;
}

/** Waits until a client is connected (start-up), bounded. */
export async function waitForRedis(redis: Redis, ms = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis not ready after ${ms} ms`)), ms);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The masters to visit for a key-space walk (SCAN, KEYS): in a cluster every master holds
 * part of the keys; one node is all of them.
 */
export const scanTargets = (redis: Redis): SingleRedis[] =>
  redis instanceof Cluster ? redis.nodes('master') : [redis];
