// Withdrawing an app (docs/decisions/033-withdraw-an-app.md): the author takes it out of the
// store, or deletes it for good with `permanent`. The store applies the rules under the app
// row's lock; this clears the listing caches (totals too) when a listed app leaves, so the
// next listing, search and count no longer show it.
import { ERROR_MESSAGES } from '@svc/types';
import { forbidden, notFound, type Caller } from '@svc/service-kit';
import { NOT_THE_AUTHOR } from '../domain/withdrawal.js';
import type { Listing } from '../store/listing.js';
import type { WithdrawResult, WithdrawalStore } from '../store/withdrawal-store.js';

export interface WithdrawDeps {
  withdrawals: WithdrawalStore;
  listing: Listing;
  /** The read router's `wrote`: the author's /me/apps shows the withdrawal at once. */
  wrote?: (caller: string) => Promise<void>;
}

export interface WithdrawOptions {
  permanent: boolean;
  now: Date;
}

async function withdrawOne(
  deps: WithdrawDeps,
  authorId: string,
  slug: string,
  opts: WithdrawOptions,
): Promise<WithdrawResult> {
  const result = await deps.withdrawals.withdraw(slug, authorId, opts);
  if (result.kind !== 'done') return result;
  if (result.wasListed) await deps.listing.invalidate({ totals: true, caller: authorId });
  else await deps.wrote?.(authorId);
  return result;
}

/** DELETE /api/v1/apps/{slug} by the caller's session (routes refuse API keys before this). */
export async function withdrawApp(
  deps: WithdrawDeps,
  caller: Caller,
  slug: string,
  opts: WithdrawOptions,
): Promise<void> {
  const result = await withdrawOne(deps, caller.userId, slug, opts);
  if (result.kind === 'not-found') throw notFound(ERROR_MESSAGES.appNotFound);
  if (result.kind === 'forbidden') throw forbidden(NOT_THE_AUTHOR);
}

/**
 * Every app of one author withdrawn, or deleted for good with `permanent` (what deleting
 * their account asks of the app store), in one transaction. Idempotent: apps already
 * withdrawn stay so, apps already deleted are no longer found. Returns how many apps the
 * author had.
 */
export async function withdrawAuthorApps(
  deps: WithdrawDeps,
  authorId: string,
  opts: WithdrawOptions,
): Promise<number> {
  const result = await deps.withdrawals.withdrawAuthor(authorId, opts);
  if (result.wasListed) await deps.listing.invalidate({ totals: true });
  return result.apps;
}
