// Writes a queue job into `job_outbox` inside the caller's transaction (the kit's job-outbox
// relay, started in main.ts, moves it to its BullMQ queue): the job commits with the change
// that asks for it, or not at all.
import type { Prisma } from '../generated/prisma/client.js';
import type { OutboxJob } from '../domain/author-notice.js';

export async function enqueueJob(tx: Prisma.TransactionClient, job: OutboxJob): Promise<void> {
  await tx.jobOutbox.create({
    data: { queue: job.queue, jobName: job.jobName, jobId: job.jobId, payload: job.payload },
  });
}
