// Account deletion, app-store's part (docs/decisions/035-account-deletion.md): auth's
// deletion job calls DELETE /internal/users/{id} until it gets a 204. The store does all of
// it in one transaction (store/user-deletion-store.ts); this clears the listing caches once
// it has committed when a listed app left, and logs and counts the deletion.
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '@svc/service-kit';
import type { Listing } from '../store/listing.js';
import type { UserDeletionStore } from '../store/user-deletion-store.js';

export interface DeleteUserDataDeps {
  deletions: UserDeletionStore;
  listing: Listing;
  logger: Logger;
  now: () => Date;
  /** Counts the deletions (user_data_deletions_total), when the app has a registry. */
  counted?: () => void;
}

/** `user_data_deletions_total`, on the ops port's registry. */
export function userDeletionCounter(registry: Registry | undefined): (() => void) | undefined {
  if (!registry) return undefined;
  const counter = new Counter({
    name: 'user_data_deletions_total',
    help: "Internal deletions of a user's data answered (a repeated call counts again)",
    registers: [registry],
  });
  return () => counter.inc();
}

/** Idempotent: a second call, or a user app-store never knew, changes nothing and succeeds. */
export async function deleteUserData(
  deps: DeleteUserDataDeps,
  userId: string,
  pseudonym: string,
): Promise<void> {
  const { wasListed, ...counts } = await deps.deletions.deleteUser(userId, pseudonym, deps.now());
  if (wasListed) await deps.listing.invalidate({ totals: true });
  deps.counted?.();
  deps.logger.info(counts, "deleted a user's app-store data");
}
