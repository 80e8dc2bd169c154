// Consumer of the notify-email queue (producer: app-store's job outbox, written in the
// transaction of a block or restore; docs/decisions/025-block-appeals-and-notices.md). Runs inside the auth process,
// which owns the users' addresses and the mailer: app-store never holds a reliable e-mail
// address (its developer snapshot exists only for authors who used a session). A job is
// done once Resend accepted the mail; failures are retried with the backoff the producer set
// (attempts, exponential delay). The job id is the Resend idempotency key, so a retry after
// an unrecorded success sends nothing twice. A user deleted meanwhile: the job is dropped.
import { UnrecoverableError, Worker } from 'bullmq';
import { NOTIFY_EMAIL_QUEUE, NotifyEmailJob } from '@svc/types';
import { queuePrefix, type Logger, type Redis } from '@svc/service-kit';
import type { Mailer } from '../clients/mailer.js';
import { appNoticeEmail } from '../domain/notice-email.js';
import type { AuthStore } from '../store/store.js';

export type NoticeOutcome = { sent: true } | { dropped: 'user-deleted' };

/** One job: look the user up, render, send. Exported for the worker and its tests. */
export async function handleNotice(
  deps: { store: Pick<AuthStore, 'findUserById'>; mailer: Mailer; logger: Logger },
  jobId: string,
  data: unknown,
): Promise<NoticeOutcome> {
  const parsed = NotifyEmailJob.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError('malformed notify-email job');
  const user = await deps.store.findUserById(parsed.data.user_id);
  if (!user) {
    deps.logger.info({ jobId, template: parsed.data.template }, 'notice dropped: user deleted');
    return { dropped: 'user-deleted' };
  }
  await deps.mailer.sendNotice(user.email, appNoticeEmail(parsed.data), `notify-email/${jobId}`);
  return { sent: true };
}

export function startNoticeWorker(deps: {
  store: Pick<AuthStore, 'findUserById'>;
  mailer: Mailer;
  /** From createRedis(url, logger, { forQueues: true }). */
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  concurrency?: number;
}): Worker {
  const worker = new Worker(
    NOTIFY_EMAIL_QUEUE,
    (job) => handleNotice(deps, String(job.id), job.data),
    {
      connection: deps.connection,
      prefix: queuePrefix(deps.redisPrefix, deps.connection),
      concurrency: deps.concurrency ?? 2,
    },
  );
  worker.on('failed', (job, err) =>
    deps.logger.warn(
      { err: err.message, jobId: job?.id, attempts: job?.attemptsMade },
      'notify-email job failed',
    ),
  );
  worker.on('error', (err) => deps.logger.warn({ err: err.message }, 'notify-email worker error'));
  return worker;
}
