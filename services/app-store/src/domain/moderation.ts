// What a moderator's action does to an app (docs/decisions/009-moderation-audit-log.md): pure rules, so the store
// applies them under the app row's lock and the routes only translate the outcome to HTTP.
import type { AppStatus } from '@svc/types';
import type { AuditAction } from './audit-entry.js';

export type ModerationAction = 'restore' | 'block' | 'dismiss';

export type ModerationDecision =
  | {
      kind: 'apply';
      after: AppStatus;
      /** the app's open reports are resolved (they stop counting toward the threshold) */
      resolvesReports: boolean;
      audit: AuditAction;
    }
  | { kind: 'conflict'; message: string };

export const NOT_BLOCKED = 'App is not blocked';
export const ALREADY_BLOCKED = 'App is already blocked';
export const WITHDRAWN_BY_AUTHOR = 'App was withdrawn by its author';

/**
 * restore: blocked → approved, resolving the open reports (five new distinct reporters are
 * needed to block it again); block: by hand, reports stay open for the record; dismiss:
 * resolves the open reports, the status stays. A withdrawn app is out of reach: a block
 * would have nothing to hide, a restore would publish it against its author's choice.
 */
export function decideModeration(action: ModerationAction, status: AppStatus): ModerationDecision {
  if (status === 'withdrawn' && action === 'block')
    return { kind: 'conflict', message: WITHDRAWN_BY_AUTHOR };
  switch (action) {
    case 'restore':
      return status === 'blocked'
        ? { kind: 'apply', after: 'approved', resolvesReports: true, audit: 'app.restored' }
        : { kind: 'conflict', message: NOT_BLOCKED };
    case 'block':
      return status === 'blocked'
        ? { kind: 'conflict', message: ALREADY_BLOCKED }
        : { kind: 'apply', after: 'blocked', resolvesReports: false, audit: 'app.blocked' };
    case 'dismiss':
      return { kind: 'apply', after: status, resolvesReports: true, audit: 'reports.dismissed' };
  }
}

/** The listing shows approved apps only: a change of status changes its membership. */
export const changesListing = (before: AppStatus, after: AppStatus): boolean => before !== after;
