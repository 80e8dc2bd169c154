// Account deletion, chat's part (docs/decisions/035-account-deletion.md): auth's job calls it
// until it answers, so it is idempotent, and a user chat never knew is simply done.
import type { Logger, Redis } from '@svc/service-kit';
import { muteKeyOf } from '../store/mute-keys.js';
import type { UserDeletionStore } from '../store/user-deletion-store.js';

export function createDeleteUserData(deps: {
  store: UserDeletionStore;
  redis: Redis;
  redisPrefix: string;
  logger: Logger;
}) {
  return async function deleteUserData(userId: string, pseudonym: string): Promise<void> {
    const counts = await deps.store.deleteUser(userId, pseudonym);
    // After the commit: a mute given meanwhile has then written its key (the mute holds the
    // message row until it commits), so this removes it too. Rate limits need nothing: chat
    // counts posts and likes per address, never per user.
    await deps.redis.del(muteKeyOf(deps.redisPrefix, { kind: 'user', userId }));
    deps.logger.info({ pseudonym, ...counts }, 'user data deleted');
  };
}
