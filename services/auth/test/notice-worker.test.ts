// The notify-email worker on real PostgreSQL, Redis/BullMQ and the fake
// Resend: a job on the queue becomes an e-mail to the user's address (looked up by id), with
// the app, what happened, the reasons and how to appeal; a deleted user's job is dropped; a
// failed or hung send is retried with backoff; one job id sends one e-mail; a malformed job
// fails for good.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue, QueueEvents } from 'bullmq';
import { closeRedis, createLogger, createRedis, queuePrefix } from '@svc/service-kit';
import { TEST_REDIS_URL } from '@svc/service-kit/testing';
import { NOTIFY_EMAIL_QUEUE, type NotifyEmailJob } from '@svc/types';
import { createResendMailer } from '../src/clients/mailer.js';
import { appNoticeEmail } from '../src/domain/notice-email.js';
import { handleNotice, startNoticeWorker } from '../src/worker/notice-worker.js';
import { createAuthStore } from '../src/store/store.js';
import { startHarness, type Harness } from './harness.js';

const logger = createLogger('auth-notice-test', 'silent');
let h: Harness;
let connection: ReturnType<typeof createRedis>;
let queue: Queue;
let events: QueueEvents;
let eventsConnection: ReturnType<typeof createRedis>;
let worker: ReturnType<typeof startNoticeWorker>;
const mailer = () =>
  createResendMailer({
    apiKey: 're_test_key',
    baseUrl: h.resend.baseUrl,
    from: 'Svc <login@svc.test>',
    timeoutMs: 500,
  });

beforeAll(async () => {
  h = await startHarness();
  connection = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
  const prefix = queuePrefix(h.redisPrefix, connection);
  queue = new Queue(NOTIFY_EMAIL_QUEUE, { connection, prefix });
  eventsConnection = createRedis(TEST_REDIS_URL, logger, { forQueues: true });
  events = new QueueEvents(NOTIFY_EMAIL_QUEUE, { connection: eventsConnection, prefix });
  await events.waitUntilReady();
  worker = startNoticeWorker({
    store: createAuthStore(h.db),
    mailer: mailer(),
    connection,
    redisPrefix: h.redisPrefix,
    logger,
  });
  await h.db.user.create({
    data: { id: 'u-author', email: 'author@notice.test', username: 'author' },
  });
});
afterAll(async () => {
  await worker.close();
  await events.close();
  await queue.close();
  await closeRedis(connection);
  await closeRedis(eventsConnection);
  await h.close();
});

const blocked: NotifyEmailJob = {
  template: 'app_blocked',
  user_id: 'u-author',
  app: { slug: 'tiny-tool', name: 'Tiny <Tool>' },
  by: 'reports',
  reason_summary: '5 reports: 3 spam, 2 malware',
  at: '2026-11-23T05:00:00.000Z',
};
const restored: NotifyEmailJob = {
  template: 'app_restored',
  user_id: 'u-author',
  app: { slug: 'tiny-tool', name: 'Tiny <Tool>' },
  reason_summary: 'the reports were false',
  at: '2026-11-23T06:00:00.000Z',
};

const options = { attempts: 3, backoff: { type: 'fixed', delay: 50 } } as const;
const mailsTo = (to: string) => h.resend.sent.filter((m) => [m.to].flat().includes(to));

async function run(jobId: string, data: unknown) {
  const job = await queue.add('notice', data, { ...options, jobId });
  return job.waitUntilFinished(events, 15_000);
}

describe('notify-email worker', () => {
  it('sends the block notice to the author: app, reasons, how to appeal; HTML escaped', async () => {
    expect(await run('app-notice-1', blocked)).toEqual({ sent: true });
    const [mail] = mailsTo('author@notice.test');
    expect(mail).toMatchObject({
      from: 'Svc <login@svc.test>',
      subject: 'Your app "Tiny <Tool>" was blocked',
      idempotencyKey: 'notify-email/app-notice-1',
    });
    expect(mail!.text).toContain('5 reports: 3 spam, 2 malware');
    expect(mail!.text).toContain('svc apps appeal tiny-tool');
    expect(mail!.text).toContain('/api/v1/me/apps/tiny-tool/appeal');
    expect(mail!.html).toContain('Tiny &#60;Tool&#62;');
    expect(mail!.html).not.toContain('<Tool>');
  });

  it("sends the restore notice with the moderator's note", async () => {
    expect(await run('app-notice-2', restored)).toEqual({ sent: true });
    const mail = mailsTo('author@notice.test').at(-1)!;
    expect(mail.subject).toBe('Your app "Tiny <Tool>" was restored');
    expect(mail.text).toContain('the reports were false');
  });

  it('a block by a moderator says so and gives the reason', () => {
    const mail = appNoticeEmail({ ...blocked, by: 'moderator', reason_summary: 'phishing page' });
    expect(mail.text).toContain('A moderator blocked it: phishing page');
  });

  it('a deleted user: the job completes as dropped, nothing is sent', async () => {
    const before = h.resend.sent.length;
    expect(await run('app-notice-3', { ...blocked, user_id: 'u-gone' })).toEqual({
      dropped: 'user-deleted',
    });
    expect(h.resend.sent.length).toBe(before);
  });

  it.each([
    ['failing once', 'app-notice-4', (): void => h.resend.failNextRequest()],
    // The send gives up after its timeout, so the Worker slot is not held.
    ['hanging once', 'app-notice-6', (): void => h.resend.stallNextRequest()],
  ] as const)('Resend %s: retried with backoff, then sent once', async (_how, jobId, trouble) => {
    const before = mailsTo('author@notice.test').length;
    trouble();
    expect(await run(jobId, blocked)).toEqual({ sent: true });
    expect(mailsTo('author@notice.test').length).toBe(before + 1);
    expect((await queue.getJob(jobId))!.attemptsMade).toBe(2);
  });

  it('one job id, one e-mail: a re-post is dropped by BullMQ, a re-run by Resend', async () => {
    const before = mailsTo('author@notice.test').length;
    await queue.add('notice', restored, { ...options, jobId: 'app-notice-2' });
    const deps = { store: createAuthStore(h.db), mailer: mailer(), logger };
    await handleNotice(deps, 'app-notice-2', restored);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('author@notice.test').length).toBe(before);
  });

  it('a malformed job fails for good (no retries)', async () => {
    await expect(run('app-notice-5', { template: 'app_blocked', user_id: '' })).rejects.toThrow(
      'malformed notify-email job',
    );
    expect((await queue.getJob('app-notice-5'))!.attemptsMade).toBe(1);
  });
});
