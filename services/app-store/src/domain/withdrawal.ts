// An author withdraws their app (docs/decisions/033-withdraw-an-app.md): pure rules, so the
// store applies them under the app row's lock and the routes only translate the outcome.
import { APP_WITHDRAWAL_RETENTION_DAYS, type AppStatus } from '@svc/types';

const DAY_MS = 86_400_000;
export const WITHDRAWAL_RETENTION_MS = APP_WITHDRAWAL_RETENTION_DAYS * DAY_MS;

/** When an app withdrawn at `withdrawnAt` is deleted for good, and its slug is free again. */
export const purgeAt = (withdrawnAt: Date): Date =>
  new Date(withdrawnAt.getTime() + WITHDRAWAL_RETENTION_MS);

export const NOT_THE_AUTHOR = 'Only the author of the app can withdraw it';

export type WithdrawalDecision =
  | { kind: 'not-found' }
  | { kind: 'forbidden' }
  /** withdraw: a live app becomes withdrawn; deleteForGood: the row goes (after withdrawing). */
  | { kind: 'apply'; withdraw: boolean; deleteForGood: boolean };

/**
 * Only the author may withdraw. Anyone else gets 403 for a listed app and 404 for a blocked
 * or withdrawn one (it does not exist for them, as for PATCH). Withdrawing again changes
 * nothing (idempotent); `permanent` deletes for good, withdrawing first if the app is live.
 * A blocked app may be withdrawn: it leaves nothing public behind, its audit entries stay.
 */
export function decideWithdrawal(
  app: { authorId: string; status: AppStatus } | undefined,
  callerId: string,
  permanent: boolean,
): WithdrawalDecision {
  if (!app) return { kind: 'not-found' };
  if (app.authorId !== callerId)
    return app.status === 'approved' ? { kind: 'forbidden' } : { kind: 'not-found' };
  return { kind: 'apply', withdraw: app.status !== 'withdrawn', deleteForGood: permanent };
}

/** The listing shows approved apps only: withdrawing one changes its membership. */
export const leavesListing = (status: AppStatus): boolean => status === 'approved';
