// Consumer of the durable system-message queue (producer: the kit's
// createSystemMessageProducer, used by sites and app-store). Runs inside the chat process.
// A job is acknowledged only after its message is stored and published; BullMQ retries
// failures with backoff (the producer sets attempts), and a malformed job fails for good.
import { UnrecoverableError, Worker } from 'bullmq';
import { SYSTEM_MESSAGE_QUEUE, SystemMessageJob } from '@svc/types';
import { queuePrefix, type Logger, type Redis } from '@svc/service-kit';
import { withExtractedContext } from '@svc/tracing';
import type { ChatRoom } from '../actions/chat-room.js';

export function startSystemMessageWorker(deps: {
  room: ChatRoom;
  /** From createRedis(url, logger, { forQueues: true }). */
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  concurrency?: number;
}): Worker {
  const worker = new Worker(
    SYSTEM_MESSAGE_QUEUE,
    // In a span continuing the trace of the request that caused it (tracing on).
    (job) =>
      withExtractedContext(job.data, 'system message job', async () => {
        const parsed = SystemMessageJob.safeParse(job.data);
        if (!parsed.success) throw new UnrecoverableError('malformed system message job');
        // The job id is unique within the queue; its timestamp guards against a reset queue.
        const message = await deps.room.system(parsed.data, `${job.id}-${job.timestamp}`);
        return { messageId: message.id };
      }),
    {
      connection: deps.connection,
      prefix: queuePrefix(deps.redisPrefix, deps.connection),
      concurrency: deps.concurrency ?? 4,
    },
  );
  worker.on('failed', (job, err) =>
    deps.logger.warn({ err: err.message, jobId: job?.id }, 'system message job failed'),
  );
  worker.on('error', (err) =>
    deps.logger.warn({ err: err.message }, 'system message worker error'),
  );
  return worker;
}
