// Consumer of the user-deletion queue (producer: auth's own job outbox, written in the
// transaction that deleted the user; docs/decisions/035-account-deletion.md). One job per
// service: it asks that service, over its internal path, to remove or anonymise what it
// holds about the user, and is done once the service answered 204. A service that is down
// or failing is asked again with a growing delay capped at an hour, for about a week; a
// job still failing then stays in the failed set, which the SvcUserDeletionFailing alert
// watches, and can be retried from there.
import { UnrecoverableError, Worker, type JobsOptions } from 'bullmq';
import { Counter, type Registry } from 'prom-client';
import { USER_DELETION_QUEUE, UserDeletionJob } from '@svc/types';
import { queuePrefix, type Logger, type Redis } from '@svc/service-kit';
import type { UserDataServices } from '../clients/user-data-services.js';

/** The first retry waits a second, each next one twice as long, an hour at most. */
export const deletionRetryDelayMs = (attemptsMade: number): number =>
  Math.min(1000 * 2 ** Math.max(0, attemptsMade - 1), 60 * 60 * 1000);

/** About a week of tries: 12 doublings reach the hour, then hourly. */
export const USER_DELETION_ATTEMPTS = 180;

/**
 * The options of every user-deletion job (the outbox relay sets them). A completed job is
 * removed at once: it names the user, whose id must not outlive the deletion.
 */
export const USER_DELETION_JOB_OPTIONS: JobsOptions = {
  attempts: USER_DELETION_ATTEMPTS,
  backoff: { type: 'custom' },
  removeOnComplete: true,
  removeOnFail: false,
};

/** One job: the named service deletes its part. Exported for the worker and its tests. */
export async function handleDeletion(
  deps: { services: Pick<UserDataServices, 'deleteUserData'> },
  data: unknown,
): Promise<UserDeletionJob['service']> {
  const parsed = UserDeletionJob.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError('malformed user-deletion job');
  const { service, user_id: userId, pseudonym } = parsed.data;
  await deps.services.deleteUserData(service, userId, pseudonym);
  return service;
}

export function startDeletionWorker(deps: {
  services: Pick<UserDataServices, 'deleteUserData'>;
  /** From createRedis(url, logger, { forQueues: true }). */
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  registry?: Registry;
  concurrency?: number;
}): Worker {
  const jobs = deps.registry
    ? new Counter({
        name: 'user_deletion_jobs_total',
        help: "Account deletions' per-service jobs, by service and outcome (done; retry: will be tried again; failed: out of attempts)",
        labelNames: ['service', 'outcome'],
        registers: [deps.registry],
      })
    : undefined;
  const worker = new Worker(USER_DELETION_QUEUE, (job) => handleDeletion(deps, job.data), {
    connection: deps.connection,
    prefix: queuePrefix(deps.redisPrefix, deps.connection),
    concurrency: deps.concurrency ?? 3,
    settings: { backoffStrategy: (attemptsMade) => deletionRetryDelayMs(attemptsMade) },
  });
  worker.on('completed', (job) => jobs?.inc({ service: job.name, outcome: 'done' }));
  worker.on('failed', (job, err) => {
    const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
    jobs?.inc({ service: job?.name ?? 'unknown', outcome: final ? 'failed' : 'retry' });
    // The job id holds the user id: the log names the service and the attempt only.
    deps.logger.warn(
      { err: err.message, service: job?.name, attempts: job?.attemptsMade, final },
      'user-deletion job failed',
    );
  });
  worker.on('error', (err) => deps.logger.warn({ err: err.message }, 'user-deletion worker error'));
  return worker;
}
