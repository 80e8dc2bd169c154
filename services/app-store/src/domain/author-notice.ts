// The author's e-mail about a block or a restore: a notify-email job, written to
// the job outbox in the transaction of the change (docs/decisions/025-block-appeals-and-notices.md). Auth's worker
// sends it. The job id is derived from the change's audit entry, so a re-post is dropped.
import { NOTIFY_EMAIL_QUEUE, type NotifyEmailJob } from '@svc/types';

export interface OutboxJob {
  queue: string;
  jobName: string;
  jobId: string;
  payload: NotifyEmailJob;
}

export function appNoticeJob(auditId: string, job: NotifyEmailJob): OutboxJob {
  return {
    queue: NOTIFY_EMAIL_QUEUE,
    jobName: job.template,
    jobId: `app-notice-${auditId}`,
    payload: job,
  };
}

/**
 * BullMQ options of notify-email jobs: retried with exponential backoff (2 s, 4 s, ... about
 * 17 minutes in all) while auth or Resend is down. Kept a day after completion, so a re-post
 * of the same job id (a relay that stopped between adding and deleting its outbox row) is
 * dropped; failed ones a week, to investigate. Not longer: a job names the author.
 */
export const NOTICE_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
} as const;
