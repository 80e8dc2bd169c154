// A user's account deletion, sites' part (docs/decisions/035-account-deletion.md), called by
// auth's deletion job through DELETE /internal/users/{id} until it answers 204.
//
// Everything is in PostgreSQL (store/user-deletion-store.ts). Redis holds one thing keyed by
// the user: the bookmark-write rate-limit bucket (`rl:sites-bookmark-write:<user id>`, a
// count of points), which expires 60 s after the window it counts began, and the in-memory
// insurance limiter's copy expires the same way. Every session ends before auth queues this
// call, so no new bucket can be made; nothing else of this service in Redis names a user
// (the boost allowance is counted from the boosts table, the daily background and the
// queues' jobs carry site ids only).
import type { Logger } from '@svc/service-kit';
import type { UserDeletionStore } from '../store/user-deletion-store.js';

export interface DeleteUserDataDeps {
  deletions: UserDeletionStore;
  logger: Logger;
}

export async function deleteUserData(
  deps: DeleteUserDataDeps,
  userId: string,
  pseudonym: string,
): Promise<void> {
  const counts = await deps.deletions.deleteUser(userId, pseudonym);
  // The pseudonym, not the id: the log outlives the account too.
  deps.logger.info({ pseudonym, ...counts }, 'user data deleted');
}
