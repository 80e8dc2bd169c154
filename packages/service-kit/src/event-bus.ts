// Events fan out through Redis pub/sub: any service publishes `{ event, payload }`,
// every realtime replica delivers it to its WebSocket clients. With tracing on the envelope
// also carries the publisher's `traceparent`, which realtime strips before delivering.
import type { Redis } from 'ioredis';
import { REDIS_EVENTS_CHANNEL } from '@svc/types';
import { injectTraceContext } from './tracing.js';

export const EVENTS_CHANNEL = REDIS_EVENTS_CHANNEL;

export const eventsChannel = (prefix: string) => `${prefix}${EVENTS_CHANNEL}`;

export interface EventPublisher {
  publish(event: string, payload: unknown): Promise<void>;
}

export function createEventPublisher(redis: Redis, prefix: string): EventPublisher {
  const channel = eventsChannel(prefix);
  return {
    async publish(event, payload) {
      await redis.publish(channel, JSON.stringify(injectTraceContext({ event, payload })));
    },
  };
}
