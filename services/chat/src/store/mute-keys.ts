// Where a mute lives: a Redis key per sender whose TTL is the mute and whose value is its end
// (epoch ms), shared by every chat replica.
import type { MessageSender } from '../domain/moderation-audit.js';

/** A logged-in sender by user id, a visitor by IP hash. */
export const muteKeyOf = (redisPrefix: string, sender: MessageSender): string =>
  sender.kind === 'user'
    ? `${redisPrefix}chat:mute:user:${sender.userId}`
    : `${redisPrefix}chat:mute:ip:${sender.ipHash}`;
