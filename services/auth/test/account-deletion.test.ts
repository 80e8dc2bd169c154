// DELETE /api/auth/me on the real auth app, PostgreSQL and Redis, and its per-service jobs
// through the real job outbox relay, BullMQ and the deletion worker to loopback services
// that stand in for app-store, sites and chat (the whole path against the real services is
// tests/test/account-deletion.test.ts): a fresh login code is required (400 otherwise,
// nothing deleted), 401 without a session, 429 past the limit; a deletion ends every
// session, clears the cookie, removes the user and their code, puts the pseudonym on the
// grants they made, and writes one job per service, which the worker repeats until the
// service answers 204.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue, UnrecoverableError } from 'bullmq';
import request from 'supertest';
import {
  closeRedis,
  createLogger,
  createPgPool,
  createRedis,
  queuePrefix,
  signSessionToken,
  startJobOutbox,
} from '@svc/service-kit';
import { TEST_REDIS_URL } from '@svc/service-kit/testing';
import {
  DeletedUserPseudonym,
  INTERNAL_TOKEN_HEADER,
  USER_DATA_SERVICES,
  USER_DELETION_QUEUE,
  internalUserPath,
  type UserDataService,
} from '@svc/types';
import { createUserDataServices } from '../src/clients/user-data-services.js';
import {
  USER_DELETION_JOB_OPTIONS,
  deletionRetryDelayMs,
  handleDeletion,
  startDeletionWorker,
} from '../src/worker/deletion-worker.js';
import { INTERNAL_TOKEN, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const deleteMe = (cookie: string | undefined, body: unknown) => {
  const r = request(h.app).delete('/api/auth/me');
  return (cookie ? r.set('Cookie', cookie) : r).send(body as object);
};
const me = (cookie: string) => request(h.app).get('/api/auth/me').set('Cookie', cookie);
const sendCode = (email: string) =>
  request(h.app).post('/api/auth/send-code').send({ email }).expect(200);

describe('DELETE /api/auth/me', () => {
  it('answers 401 without a session and 400 for a malformed body, deleting nothing', async () => {
    const none = await deleteMe(undefined, { code: '123456' });
    expect([none.status, none.body]).toEqual([401, { error: 'Authentication required' }]);
    const ann = await h.login('ann@delete.test');
    for (const body of [{}, { code: '12345' }, { code: 123456 }]) {
      const res = await deleteMe(ann.cookie, body);
      expect([res.status, typeof res.body.error]).toEqual([400, 'string']);
    }
    expect((await me(ann.cookie)).status).toBe(200);
  });

  it('refuses a wrong code (400) and a code that was never sent, and the account stays', async () => {
    const bob = await h.login('bob@delete.test');
    // Logging in spent the login code: there is no live code now.
    const noCode = await deleteMe(bob.cookie, { code: '000000' });
    expect([noCode.status, noCode.body]).toEqual([400, { error: 'Invalid or expired code' }]);
    await sendCode('bob@delete.test');
    const code = h.resend.lastCodeFor('bob@delete.test');
    const wrong = code === '999999' ? '999998' : '999999';
    expect((await deleteMe(bob.cookie, { code: wrong })).status).toBe(400);
    expect((await me(bob.cookie)).status).toBe(200);
    expect(await h.db.user.count({ where: { id: bob.user.id } })).toBe(1);
    expect(await h.db.jobOutbox.count()).toBe(0);
  });

  it('deletes the account: every session ends, the cookie is cleared, one job per service is written', async () => {
    const carol = await h.login('carol@delete.test');
    // A second device: another session of the same user.
    const phone = `sn_token=${signSessionToken({ ...carol.user }, h.keys.privateKey).token}`;
    const dave = await h.login('dave@delete.test');
    // Carol granted Dave the moderator role: the grant stays, without her id.
    await h.db.moderatorGrant.create({ data: { userId: dave.user.id, grantedBy: carol.user.id } });
    await sendCode('carol@delete.test');

    const res = await deleteMe(carol.cookie, { code: h.resend.lastCodeFor('carol@delete.test') });
    expect([res.status, res.body]).toEqual([200, { deleted: true }]);
    expect(res.headers['set-cookie']![0]).toMatch(/^sn_token=;.*Expires=Thu, 01 Jan 1970/);
    expect((await me(carol.cookie)).status).toBe(401);
    expect((await me(phone)).status).toBe(401);
    expect((await me(dave.cookie)).status).toBe(200);

    expect(await h.db.user.count({ where: { id: carol.user.id } })).toBe(0);
    expect(await h.db.loginCode.count({ where: { email: 'carol@delete.test' } })).toBe(0);
    const grant = await h.db.moderatorGrant.findUniqueOrThrow({ where: { userId: dave.user.id } });
    expect(DeletedUserPseudonym.safeParse(grant.grantedBy).success).toBe(true);

    const jobs = await h.db.jobOutbox.findMany({ orderBy: { id: 'asc' } });
    expect(jobs.map((j) => [j.queue, j.jobName, j.jobId])).toEqual(
      USER_DATA_SERVICES.map((s) => [USER_DELETION_QUEUE, s, `${USER_DELETION_QUEUE}-${s}-${carol.user.id}`]),
    );
    for (const j of jobs)
      expect(j.payload).toEqual({ user_id: carol.user.id, pseudonym: grant.grantedBy, service: j.jobName });

    // The address may sign up again: a new user, a new id.
    const again = await h.login('carol@delete.test');
    expect(again.user.id).not.toBe(carol.user.id);
    await h.db.jobOutbox.deleteMany();
  });

  it('answers 429 past five tries an hour, with Retry-After', async () => {
    const erin = await h.login('erin@delete.test');
    await sendCode('erin@delete.test');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await deleteMe(erin.cookie, { code: '000001' })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const limited = await deleteMe(erin.cookie, { code: '000001' });
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(await h.db.user.count({ where: { id: erin.user.id } })).toBe(1);
  });
});

describe('the deletion jobs', () => {
  it('retry after a second, doubling up to an hour', () => {
    expect([1, 2, 3, 13, 14, 100].map(deletionRetryDelayMs)).toEqual([
      1000, 2000, 4000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('refuse a malformed job for good', async () => {
    const services = { deleteUserData: async () => {} };
    await expect(handleDeletion({ services }, { user_id: 'u1', service: 'sites' })).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
  });

  it('reach every service through the outbox relay, and a failing one is asked again until 204', async () => {
    const logger = createLogger('auth-deletion-test', 'silent');
    // app-store answers 503 twice before it deletes; the others delete at once.
    const calls: Array<{ service: UserDataService; path: string; token: unknown; body: unknown }> = [];
    const failuresLeft: Partial<Record<UserDataService, number>> = { 'app-store': 2 };
    const servers: http.Server[] = [];
    const urls = {} as Record<UserDataService, string>;
    for (const service of USER_DATA_SERVICES) {
      const server = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          calls.push({ service, path: `${req.method} ${req.url}`, token: req.headers[INTERNAL_TOKEN_HEADER], body: JSON.parse(raw) });
          const fail = (failuresLeft[service] ?? 0) > 0;
          if (fail) failuresLeft[service]! -= 1;
          res.writeHead(fail ? 503 : 204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
      urls[service] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
    const connection = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
    const queue = new Queue(USER_DELETION_QUEUE, {
      connection,
      prefix: queuePrefix(h.redisPrefix, connection),
    });
    const pool = createPgPool(h.database.target, 2);
    const relay = startJobOutbox({
      pool,
      logger,
      service: 'auth',
      intervalMs: 100,
      // Retries come quickly here; the product's backoff is checked above.
      queues: { [USER_DELETION_QUEUE]: { queue, options: { ...USER_DELETION_JOB_OPTIONS, backoff: { type: 'fixed', delay: 50 } } } },
    });
    const worker = startDeletionWorker({
      services: createUserDataServices({ urls, internalToken: INTERNAL_TOKEN, logger }),
      connection,
      redisPrefix: h.redisPrefix,
      logger,
    });
    await h.db.jobOutbox.deleteMany();
    try {
      const frank = await h.login('frank@delete.test');
      await sendCode('frank@delete.test');
      await deleteMe(frank.cookie, { code: h.resend.lastCodeFor('frank@delete.test') }).expect(200);
      relay.nudge();
      const deadline = Date.now() + 15_000;
      while (calls.filter((c) => c.path.startsWith('DELETE')).length < 5 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));

      const path = `DELETE ${internalUserPath(frank.user.id)}`;
      const pseudonym = (calls[0]?.body as { pseudonym: string }).pseudonym;
      expect(DeletedUserPseudonym.safeParse(pseudonym).success).toBe(true);
      expect(calls.map((c) => c.service).sort()).toEqual(['app-store', 'app-store', 'app-store', 'chat', 'sites']);
      for (const c of calls) expect(c).toMatchObject({ path, token: INTERNAL_TOKEN, body: { pseudonym } });
      // Done jobs are removed (their ids name the user); the outbox is empty.
      await new Promise((r) => setTimeout(r, 200));
      expect(await queue.getJobCounts('completed', 'failed', 'waiting', 'delayed', 'active')).toEqual({
        completed: 0,
        failed: 0,
        waiting: 0,
        delayed: 0,
        active: 0,
      });
      expect(await h.db.jobOutbox.count()).toBe(0);
    } finally {
      await worker.close();
      await relay.stop();
      await queue.close();
      await pool.end();
      await closeRedis(connection);
      servers.forEach((s) => s.close());
    }
  });
});
