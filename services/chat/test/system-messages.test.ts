// The system-message consumer: a job posted through the kit's producer (as sites and
// app-store post them) is stored once and published as new_message.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Queue, type Worker } from 'bullmq';
import { SYSTEM_MESSAGE_QUEUE, NewMessageEvent } from '@svc/types';
import {
  createRedis,
  createSystemMessageProducer,
  queuePrefix,
  type Redis,
  type SystemMessageProducer,
} from '@svc/service-kit';
import { TEST_REDIS_URL } from '@svc/service-kit/testing';
import { startSystemMessageWorker } from '../src/worker/system-message-worker.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let queueRedis: Redis;
let producer: SystemMessageProducer;
let worker: Worker;

beforeAll(async () => {
  h = await startHarness();
  queueRedis = createRedis(TEST_REDIS_URL, h.logger, { forQueues: true });
  producer = createSystemMessageProducer(queueRedis, h.redisPrefix);
  worker = startSystemMessageWorker({
    room: h.room,
    connection: queueRedis,
    redisPrefix: h.redisPrefix,
    logger: h.logger,
  });
});
afterAll(async () => {
  await worker.close();
  await producer.close();
  queueRedis.disconnect();
  await h.close();
});

describe('system message worker', () => {
  it('stores a site_submitted job as a system message and publishes it', async () => {
    await producer.post({
      content_key: 'site_submitted',
      content_params: { site_id: 's-1', url: 'https://example.com/', domain: 'example.com' },
    });
    const [event] = await h.waitForEvents((e) => e.payload.type === 'system', 1, 10_000);
    const { payload } = NewMessageEvent.parse(event);
    expect(payload).toMatchObject({
      type: 'system',
      content: 'New site submitted: example.com',
      content_key: 'site_submitted',
      content_params: { site_id: 's-1', url: 'https://example.com/', domain: 'example.com' },
      sender_name: 'System',
      sender_location: null,
      like_count: 0,
    });
    const listed = await request(h.app).get('/api/messages');
    expect(listed.body.messages.map((m: { id: string }) => m.id)).toContain(payload.id);
  });

  it('stores app_blocked jobs, each exactly once', async () => {
    for (let i = 0; i < 3; i++) {
      await producer.post({
        content_key: 'app_blocked',
        content_params: { slug: `a${i}`, name: `App ${i}` },
      });
    }
    const events = await h.waitForEvents((e) => e.payload.content_key === 'app_blocked', 3, 10_000);
    expect(events).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.db.message.count({ where: { contentKey: 'app_blocked' } })).toBe(3);
    expect(h.events.filter((e) => e.payload.content_key === 'app_blocked')).toHaveLength(3);
  });

  it('stores a re-run of an already stored job only once (idempotent by job id)', async () => {
    const job = {
      content_key: 'app_blocked' as const,
      content_params: { slug: 'dup', name: 'Dup' },
    };
    const first = await h.room.system(job, 'job-77-1');
    const second = await h.room.system(job, 'job-77-1');
    expect(second.id).toBe(first.id);
    expect(await h.db.message.count({ where: { id: first.id } })).toBe(1);
  });

  it('fails a malformed job for good without storing anything', async () => {
    const queue = new Queue(SYSTEM_MESSAGE_QUEUE, {
      connection: queueRedis,
      prefix: queuePrefix(h.redisPrefix, queueRedis),
    });
    const before = await h.db.message.count();
    const job = await queue.add('bogus', { content_key: 'bogus' }, { attempts: 5 });
    for (let i = 0; i < 100 && !(await job.isFailed()); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await job.isFailed()).toBe(true);
    expect((await queue.getJob(job.id!))?.attemptsMade).toBe(1);
    expect(await h.db.message.count()).toBe(before);
    await queue.close();
  });
});
