// The kit's Redis users against a real three-master Redis Cluster (redis-server processes on
// loopback ports): rate limits, the distinct-values limit, session revocation, sign-out
// everywhere and roles,
// pub/sub, BullMQ under the hash-tagged prefix, the test clean-up, a connection attempt that
// fails its ready check, a MOVED answer during a disconnect; then one master down (503 for
// its slots only) and back. The system-level run is tests/test/redis-cluster.test.ts.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Queue, Worker } from 'bullmq';
import express from 'express';
import { Command } from 'ioredis';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { createEventPublisher, eventsChannel } from '../src/redis/event-bus.js';
import { createLogger } from '../src/ops/logger.js';
import { distinctLimit, rateLimit } from '../src/http/rate-limit.js';
import { Cluster, createRedis, waitForRedis, type Redis } from '../src/redis/redis.js';
import { requireSession, sessionMiddleware } from '../src/auth/session.js';
import {
  currentSessionEpoch,
  formerModeratorRoleKey,
  moderatorRoleKey,
  revocationKey,
  revokeAllSessions,
  revokeSession,
  sessionEpochKey,
  setModeratorRole,
} from '../src/auth/session-state.js';
import { SESSION_COOKIE, signSessionToken } from '../src/auth/session-token.js';
import { createSystemMessageProducer, queuePrefix } from '../src/queues/system-messages.js';
import { SYSTEM_MESSAGE_QUEUE } from '@svc/types';
import {
  deleteRedisPrefix,
  generateTestKeyPair,
  startRedisCluster,
  testRedisPrefix,
  type TestRedisCluster,
} from '../src/testing/index.js';

jest.setTimeout(120_000);

const logger = createLogger('test', 'silent');
const keys = generateTestKeyPair();
const prefix = testRedisPrefix();
let cluster: TestRedisCluster;
let redis: Redis;
let queueRedis: Redis;

beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = createRedis(cluster.url, logger, { name: 'cluster-test' });
  queueRedis = createRedis(cluster.url, logger, { name: 'cluster-test-queues', forQueues: true });
  await Promise.all([waitForRedis(redis, 30_000), waitForRedis(queueRedis, 30_000)]);
});

afterAll(async () => {
  redis?.disconnect();
  queueRedis?.disconnect();
  await cluster?.close();
});

/** How `promise` ended within `ms`: `resolved: <value>`, `rejected: <message>` or `pending`. */
const settledWithin = (promise: Promise<unknown>, ms: number): Promise<string> =>
  Promise.race([
    promise.then(
      (value) => `resolved: ${String(value)}`,
      (err: Error) => `rejected: ${err.message}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('pending'), ms).unref()),
  ]);

const sessionApp = () =>
  createServiceApp({
    logger,
    routes: (app) => {
      app.use(sessionMiddleware({ publicKey: keys.publicKey, redis, prefix }));
      app.get('/me', requireSession, (req, res) => void res.json(req.caller));
    },
  });
const cookie = (token: string) => `${SESSION_COOKIE}=${token}`;
let n = 0;
const someone = () => ({ id: `cluster-user-${++n}`, email: `c${n}@example.com`, username: `c${n}` });

describe('on a Redis Cluster', () => {
  it('REDIS_URL redis+cluster:// gives a Cluster client that spreads keys over the masters', async () => {
    expect(redis).toBeInstanceOf(Cluster);
    const owners = new Set<number>();
    for (let i = 0; i < 30; i++) owners.add((await cluster.nodeOf(`${prefix}spread:${i}`)).port);
    expect(owners.size).toBe(3);
  });

  it('counts rate limits and distinct values, whichever master holds the key', async () => {
    const limit = rateLimit({ redis, prefix, name: 'cluster-rl', points: 2, durationSeconds: 60, key: (req) => String(req.query.k) });
    const distinct = distinctLimit({ redis, prefix, name: 'cluster-distinct', limit: 2, durationSeconds: 60 });
    const app = express();
    app.get('/limited', limit.middleware, (_req, res) => void res.json({ ok: true }));
    app.get('/distinct', (req, res, next) => {
      distinct.admit('net', String(req.query.v), res).then((ok) => (ok ? res.json({ ok }) : undefined), next);
    });
    for (const k of ['a', 'b', 'c', 'd']) {
      expect((await request(app).get(`/limited?k=${k}`)).status).toBe(200);
      expect((await request(app).get(`/limited?k=${k}`)).status).toBe(200);
      const refused = await request(app).get(`/limited?k=${k}`);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'Too many requests' });
    }
    expect((await request(app).get('/distinct?v=x')).status).toBe(200);
    expect((await request(app).get('/distinct?v=y')).status).toBe(200);
    expect((await request(app).get('/distinct?v=x')).status).toBe(200);
    expect((await request(app).get('/distinct?v=z')).status).toBe(429);
  });

  it('reads revocations and role overrides that sit in different slots', async () => {
    const app = sessionApp();
    const revoked = signSessionToken(someone(), keys.privateKey);
    await revokeSession(redis, prefix, revoked.claims);
    expect((await request(app).get('/me').set('Cookie', cookie(revoked.token))).status).toBe(401);

    const promoted = someone();
    const session = signSessionToken(promoted, keys.privateKey);
    await setModeratorRole(redis, prefix, promoted.id, true);
    const me = await request(app).get('/me').set('Cookie', cookie(session.token));
    expect(me.status).toBe(200);
    expect(me.body.isModerator).toBe(true);
  });

  it('fans an event out through pub/sub', async () => {
    const sub = createRedis(cluster.url, logger, { name: 'cluster-sub', forQueues: true });
    try {
      await sub.subscribe(eventsChannel(prefix));
      const received = new Promise<string>((resolve) => sub.once('message', (_ch: string, msg: string) => resolve(msg)));
      await createEventPublisher(redis, prefix).publish('site_update', { id: 's1' });
      expect(JSON.parse(await received)).toEqual({ event: 'site_update', payload: { id: 's1' } });
    } finally {
      sub.disconnect();
    }
  });

  it('keeps every key of a BullMQ queue in one slot under the hash-tagged prefix', async () => {
    const tagged = queuePrefix(prefix, queueRedis);
    expect(tagged).toBe(`{${prefix}bull}`);
    const producer = createSystemMessageProducer(queueRedis, prefix);
    let resolveSeen!: (data: unknown) => void;
    const seen = new Promise<unknown>((resolve) => (resolveSeen = resolve));
    const worker = new Worker(
      SYSTEM_MESSAGE_QUEUE,
      async (job) => {
        resolveSeen(job.data);
        return 'done';
      },
      { connection: queueRedis, prefix: tagged },
    );
    worker.on('error', () => {});
    await producer.post(
      { content_key: 'site_submitted', content_params: { site_id: 's1', url: 'https://example.com/', domain: 'example.com' } },
      { jobId: 'cluster-job-1' },
    );
    try {
      expect(await seen).toMatchObject({ content_key: 'site_submitted' });
    } finally {
      await worker.close();
      await producer.close();
    }

    const queueKeys: string[] = [];
    for (const node of (queueRedis as Cluster).nodes('master'))
      queueKeys.push(...(await node.keys(`${tagged}*`)));
    expect(queueKeys.length).toBeGreaterThan(2);
    const owners = new Set(await Promise.all(queueKeys.map(async (k) => (await cluster.nodeOf(k)).port)));
    expect(owners.size).toBe(1);
    const queue = new Queue(SYSTEM_MESSAGE_QUEUE, { connection: queueRedis, prefix: tagged });
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('clears a test prefix on every master', async () => {
    const local = testRedisPrefix();
    await Promise.all(Array.from({ length: 20 }, (_, i) => redis.set(`${local}k${i}`, '1')));
    await deleteRedisPrefix(redis, local);
    const left = await Promise.all(Array.from({ length: 20 }, (_, i) => redis.exists(`${local}k${i}`)));
    expect(left.every((x) => x === 0)).toBe(true);
  });

  it("settles a queue client's connection attempt that fails its ready check, then connects on its own", async () => {
    // BullMQ resets a Worker's blocking connection by disconnecting it and awaiting connect().
    // Unpatched, ioredis 6.0.0 never settled that promise when the attempt's ready check found
    // cluster_state:fail (as a just-restarted master reports), and the Worker never fetched a
    // job again (patches/ioredis@6.0.0.patch, docs/decisions/022-ioredis-cluster-patch.md).
    const client = createRedis(cluster.url, logger, { name: 'cluster-ready-check', forQueues: true });
    try {
      await waitForRedis(client, 30_000);
      const ended = new Promise((resolve) => client.once('end', resolve));
      client.disconnect();
      await ended;
      const uncovered = await cluster.uncoverSlot(`${prefix}ready-check`);
      let attempt: string;
      try {
        attempt = await settledWithin(client.connect(), 10_000);
      } finally {
        await uncovered.restore();
      }
      expect(attempt).toBe('rejected: Ready check failed: cluster_state:fail');
      // The reconnection that follows the failed attempt succeeds once the cluster is whole.
      expect(await settledWithin(client.ping(), 30_000)).toBe('resolved: PONG');
    } finally {
      client.disconnect();
    }
  });

  it('finishes disconnecting when a MOVED answer is read after the disconnect began, and reconnects', async () => {
    // Unpatched, a redirection answered during disconnect() adds a node to the pool being
    // drained, so "end" never comes, and BullMQ, awaiting it while resetting a Worker's
    // blocking connection, never fetches a job again (patches/ioredis@6.0.0.patch).
    const client = createRedis(cluster.url, logger, { name: 'cluster-moved', forQueues: true });
    const moving = `${prefix}moving`;
    try {
      await waitForRedis(client, 30_000);
      const owner = await cluster.nodeOf(moving);
      // A key the same master keeps: its answer comes first on the same connection.
      const slotOf = (key: string) => client.cluster('KEYSLOT', key);
      const movingSlot = await slotOf(moving);
      let staying = '';
      for (let i = 0; !staying; i++) {
        const key = `${prefix}staying-${i}`;
        if ((await cluster.nodeOf(key)) === owner && (await slotOf(key)) !== movingSlot) staying = key;
      }
      await cluster.moveSlot(moving, cluster.nodes.find((n) => n !== owner)!);
      try {
        const ended = new Promise<string>((resolve) => client.once('end', () => resolve('end')));
        // Disconnect from inside the first answer's handling, which the parser calls before
        // it reads the second answer, MOVED, from the same read.
        const first = new Command('get', [staying]);
        const resolveFirst = first.resolve.bind(first);
        first.resolve = (value) => {
          resolveFirst(value);
          client.disconnect();
        };
        const second = new Command('get', [moving]);
        void client.sendCommand(first);
        void client.sendCommand(second);
        const moved = second.promise.then(
          () => 'answered',
          (err: Error) => `rejected: ${err.message}`,
        );
        expect(await settledWithin(ended, 10_000)).toBe('resolved: end');
        expect(await moved).toMatch(/^rejected: /);
      } finally {
        await cluster.moveSlot(moving, owner);
      }
      await client.connect();
      expect(await settledWithin(client.set(moving, 'v'), 10_000)).toBe('resolved: OK');
      expect(await cluster.nodeOf(moving)).toBe(owner);
    } finally {
      client.disconnect();
    }
  });

  it("signs out everywhere: the user's epoch and role share a slot; other users keep their sessions and roles", async () => {
    const app = sessionApp();
    const alice = someone();
    const bob = someone();
    const slot = async (key: string) => Number(await redis.cluster('KEYSLOT', key));
    expect(await slot(sessionEpochKey(prefix, alice.id))).toBe(await slot(moderatorRoleKey(prefix, alice.id)));
    // Users spread over the masters: the hash tag is the user id, not a shared name.
    const owners = new Set<number>();
    for (let i = 0; i < 30; i++) owners.add((await cluster.nodeOf(sessionEpochKey(prefix, `spread-${i}`))).port);
    expect(owners.size).toBe(3);

    const signIn = async (u: ReturnType<typeof someone>) =>
      signSessionToken({ ...u, epoch: await currentSessionEpoch(redis, prefix, u.id) }, keys.privateKey);
    const [a1, a2, b1] = await Promise.all([signIn(alice), signIn(alice), signIn(bob)]);
    await setModeratorRole(redis, prefix, alice.id, true);
    await redis.set(formerModeratorRoleKey(prefix, bob.id), '1', 'EX', 600);
    const before = await request(app).get('/me').set('Cookie', cookie(a1.token));
    expect(before.body.isModerator).toBe(true);
    expect((await request(app).get('/me').set('Cookie', cookie(b1.token))).body.isModerator).toBe(true);

    await revokeAllSessions(redis, prefix, alice.id);
    for (const s of [a1, a2]) expect((await request(app).get('/me').set('Cookie', cookie(s.token))).status).toBe(401);
    expect((await request(app).get('/me').set('Cookie', cookie(b1.token))).status).toBe(200);
    const after = await request(app).get('/me').set('Cookie', cookie((await signIn(alice)).token));
    expect(after.status).toBe(200);
    expect(after.body.isModerator).toBe(true);
  });

  it('answers 503 for the slots of a master that is down, serves the others, and recovers', async () => {
    const app = sessionApp();
    const a = signSessionToken(someone(), keys.privateKey);
    const victim = await cluster.nodeOf(revocationKey(prefix, a.claims.jti));
    // A second user whose keys live on the other masters.
    let b: ReturnType<typeof signSessionToken> | undefined;
    for (let i = 0; i < 100 && !b; i++) {
      const candidate = signSessionToken(someone(), keys.privateKey);
      const owners = await Promise.all([
        cluster.nodeOf(revocationKey(prefix, candidate.claims.jti)),
        cluster.nodeOf(moderatorRoleKey(prefix, candidate.claims.sub)),
        cluster.nodeOf(formerModeratorRoleKey(prefix, candidate.claims.sub)),
      ]);
      if (owners.every((o) => o !== victim)) b = candidate;
    }
    expect(b).toBeDefined();
    expect((await request(app).get('/me').set('Cookie', cookie(a.token))).status).toBe(200);

    await cluster.stopNode(victim, 'SIGKILL');
    const started = Date.now();
    const down = await request(app).get('/me').set('Cookie', cookie(a.token));
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(10_000);
    // Once the others have marked it failed too, they keep serving their own slots.
    await cluster.waitForState('ok');
    expect((await request(app).get('/me').set('Cookie', cookie(b!.token))).status).toBe(200);

    await cluster.resumeNode(victim);
    await cluster.waitForState('ok');
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await request(app).get('/me').set('Cookie', cookie(a.token))).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });

  it('answers 503 while a master is frozen (SIGSTOP: connected, silent) and recovers when it resumes', async () => {
    const app = sessionApp();
    const a = signSessionToken(someone(), keys.privateKey);
    const victim = await cluster.nodeOf(revocationKey(prefix, a.claims.jti));
    expect((await request(app).get('/me').set('Cookie', cookie(a.token))).status).toBe(200);
    await cluster.stopNode(victim, 'SIGSTOP');
    try {
      const started = Date.now();
      const frozen = await request(app).get('/me').set('Cookie', cookie(a.token));
      expect(frozen.status).toBe(503);
      // commandTimeout (2 s) bounds the wait, with room for a loaded machine.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await cluster.resumeNode(victim);
    }
    await cluster.waitForState('ok');
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await request(app).get('/me').set('Cookie', cookie(a.token))).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });
});
