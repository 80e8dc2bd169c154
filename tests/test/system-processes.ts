// Starts built service processes (`node dist/main.js`, as in production) for system tests,
// each with its test settings and, when it owns data, a fresh PostgreSQL schema; one Redis
// prefix and one key pair per system. `stop()` tears everything down in reverse order.
import { fileURLToPath } from 'node:url';
import {
  clearRedisPrefix,
  createTestDatabase,
  generateTestKeyPair,
  spawnService,
  startFakeResend,
  testRedisPrefix,
  waitForOk,
  type ServiceProcess,
  type TestDatabase,
} from '@svc/service-kit/testing';

/** The repository root (processes run from there, like `npm start`). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type FakeResend = Awaited<ReturnType<typeof startFakeResend>>;

/** Services that own a PostgreSQL schema: the setting that carries its URL. */
const DATABASE_SETTING = {
  auth: 'AUTH_DATABASE_URL',
  'app-store': 'APP_STORE_DATABASE_URL',
  sites: 'SITES_DATABASE_URL',
  chat: 'CHAT_DATABASE_URL',
} as const;

export type ServiceWithDatabase = keyof typeof DATABASE_SETTING;
export type ServiceName = ServiceWithDatabase | 'realtime' | 'translate' | 'web';

/** The migrations folder of a service (for `createTestDatabase`). */
export const migrationsOf = (service: ServiceWithDatabase) =>
  fileURLToPath(new URL(`../../services/${service}/prisma/migrations`, import.meta.url));

export interface StartOptions {
  /** How long /healthz may take to answer 200 (default 60 s: a loaded 2-core CI machine starts several processes at once). */
  healthTimeoutMs?: number;
  /** Listen on this port (picked with freePort beforehand) instead of a fresh one. */
  port?: number;
}

export interface TestSystem {
  readonly redisPrefix: string;
  /** The ES256 pair: auth signs sessions with the private key, every service checks them. */
  readonly keys: { privateKey: string; publicKey: string };
  /** Every process started, healthy or not, in start order. */
  readonly processes: readonly ServiceProcess[];
  /** A fresh schema from `service`'s migrations, dropped on `stop()`. */
  database(service: ServiceWithDatabase): Promise<TestDatabase>;
  /** The fake Resend auth sends its codes to (started once, closed on `stop()`). */
  resend(): Promise<FakeResend>;
  /** A built entry point (e.g. `gateway/dist/main.js`) once its /healthz answers 200. */
  start(
    entry: string,
    env: Record<string, string>,
    options?: StartOptions,
  ): Promise<ServiceProcess>;
  /**
   * `services/<name>/dist/main.js` with its test settings: the system's Redis prefix and
   * public key, a fresh schema when it owns one, and for auth the private key and the fake
   * Resend. `env` is added last (it wins).
   */
  service(name: ServiceName, env?: Record<string, string>): Promise<ServiceProcess>;
  /** Something else to close on `stop()` (a fake, a proxy). */
  track<T extends { close(): Promise<unknown> }>(closable: T): T;
  /** Stops processes and closes fakes in reverse order, drops schemas, clears the prefix. */
  stop(): Promise<void>;
}

export function createTestSystem(): TestSystem {
  const redisPrefix = testRedisPrefix();
  const keys = generateTestKeyPair();
  const databases: TestDatabase[] = [];
  const processes: ServiceProcess[] = [];
  /** Every process spawned, healthy or not, and every fake, in start order. */
  const closers: (() => Promise<unknown>)[] = [];
  let resend: Promise<FakeResend> | undefined;

  const track = <T extends { close(): Promise<unknown> }>(closable: T): T => {
    closers.push(() => closable.close());
    return closable;
  };

  const database = async (service: ServiceWithDatabase) => {
    const db = await createTestDatabase(migrationsOf(service));
    databases.push(db);
    return db;
  };

  const start = async (entry: string, env: Record<string, string>, options: StartOptions = {}) => {
    const proc = await spawnService({ cwd: ROOT, entry, env, port: options.port });
    processes.push(proc);
    // A stop asked for, by the teardown or by a test through `proc.stop`, is not a death.
    let stopping = false;
    const stop = proc.stop;
    proc.stop = (ms) => {
      stopping = true;
      return stop(ms);
    };
    closers.push(() => proc.stop());
    // A process that dies mid-suite shows up as refused connections in some later test:
    // say which one died and what it printed, where the failure is read.
    void proc.exited.then(({ code, signal }) => {
      if (!stopping) {
        console.error(`${entry} on port ${proc.port} exited (code ${code}, signal ${signal}) during the tests:\n${proc.output()}`);
      }
    });
    await waitForOk(proc, '/healthz', options.healthTimeoutMs ?? 60_000);
    return proc;
  };

  const system: TestSystem = {
    redisPrefix,
    keys,
    processes,
    database,
    track,
    start,
    resend: () => (resend ??= startFakeResend().then(track)),
    async service(name, env = {}) {
      const settings: Record<string, string> = {
        REDIS_PREFIX: redisPrefix,
        JWT_PUBLIC_KEY: keys.publicKey,
      };
      if (name in DATABASE_SETTING) {
        const owner = name as ServiceWithDatabase;
        settings[DATABASE_SETTING[owner]] = (await database(owner)).url;
      }
      if (name === 'auth') {
        Object.assign(settings, {
          JWT_PRIVATE_KEY: keys.privateKey,
          RESEND_API_KEY: 're_system_test',
          RESEND_BASE_URL: (await system.resend()).baseUrl,
          EMAIL_FROM: 'Svc <login@svc.test>',
        });
      }
      return start(`services/${name}/dist/main.js`, { ...settings, ...env });
    },
    async stop() {
      // Reverse order: the gateway goes before the services it routes to; a stop that fails
      // must not keep the rest running (the first failure is thrown at the end).
      const failures: unknown[] = [];
      for (const close of closers.splice(0).reverse()) await close().catch((e) => failures.push(e));
      await Promise.all(databases.splice(0).map((d) => d.drop()));
      await clearRedisPrefix(redisPrefix);
      if (failures.length) throw failures[0];
    },
  };
  return system;
}
