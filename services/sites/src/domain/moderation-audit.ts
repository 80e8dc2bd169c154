// The audit entries of site moderation (docs/decisions/024-audit-log-per-service.md): who hid or restored which
// site, why, and its visibility before and after. Written by store/site-store.ts in the same
// transaction as the change (service-kit audit-log.ts).
import type { AuditEntryInput } from '@svc/service-kit';

export type SiteAuditAction = 'site.hidden' | 'site.restored';

/** A moderator hid a visible site. */
export function siteHiddenEntry(input: {
  actor: string;
  siteId: string;
  reason: string;
  hiddenAt: Date;
}): AuditEntryInput {
  return {
    actor: input.actor,
    action: 'site.hidden' satisfies SiteAuditAction,
    targetType: 'site',
    targetId: input.siteId,
    reason: input.reason,
    before: { hidden: false },
    after: { hidden: true, hidden_at: input.hiddenAt.toISOString(), hidden_reason: input.reason },
  };
}

/**
 * A moderator showed a hidden site again. The restore carries no reason of its own, so the
 * entry keeps the hide's (in `before`) and an empty reason.
 */
export function siteRestoredEntry(input: {
  actor: string;
  siteId: string;
  wasHiddenAt: Date;
  wasHiddenReason: string;
}): AuditEntryInput {
  return {
    actor: input.actor,
    action: 'site.restored' satisfies SiteAuditAction,
    targetType: 'site',
    targetId: input.siteId,
    reason: '',
    before: {
      hidden: true,
      hidden_at: input.wasHiddenAt.toISOString(),
      hidden_reason: input.wasHiddenReason,
    },
    after: { hidden: false },
  };
}
