// "Delete my account" (docs/decisions/035-account-deletion.md). The caller proves it again
// with a login code sent to the account's address, so a stolen cookie alone cannot do it.
// Every session ends first: once the user row is gone nothing may still act as them, and
// should the deletion then fail, the worst left behind is a signed-out user who can retry.
// The user row, its login code and one job per other service go in one transaction; the
// jobs, relayed from the outbox, finish the deletion everywhere else.
import { moderatorRoleKey, revokeAllSessions, unauthorized, type Redis } from '@svc/service-kit';
import { newDeletedUserPseudonym } from '../domain/deleted-user-pseudonym.js';
import type { AuthStore } from '../store/store.js';
import type { Login } from './login.js';

export function createAccountDeletion(deps: {
  store: Pick<AuthStore, 'findUserById' | 'deleteUser'>;
  login: Pick<Login, 'spendCode'>;
  redis: Redis;
  redisPrefix: string;
  /** The job outbox relay, told there are rows to post. */
  jobs?: { nudge(): void };
}) {
  return {
    async deleteAccount(userId: string, code: string): Promise<void> {
      const user = await deps.store.findUserById(userId);
      if (!user) throw unauthorized();
      await deps.login.spendCode(user.email, code);
      await revokeAllSessions(deps.redis, deps.redisPrefix, user.id);
      // A parallel deletion that won leaves nothing to do: the answer is the same.
      await deps.store.deleteUser(user.id, newDeletedUserPseudonym());
      await deps.redis.del(moderatorRoleKey(deps.redisPrefix, user.id));
      deps.jobs?.nudge();
    },
  };
}
export type AccountDeletion = ReturnType<typeof createAccountDeletion>;
