// Writing and reading the append-only audit log (docs/decisions/009-moderation-audit-log.md) through the kit's one
// mechanism (service-kit audit-log.ts, shared with sites and chat). appendAudit takes the
// caller's transaction so an entry commits with the change it records, or not at all.
import {
  appendAuditEntry,
  listAuditEntries,
  type AuditPage,
  type ListAuditQuery as KitListAuditQuery,
} from '@svc/service-kit';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { AuditEntryInput, AuditTargetType, ReasonCounts } from '../domain/audit-entry.js';

type Tx = Prisma.TransactionClient;

export type { AuditEntry, AuditPage } from '@svc/service-kit';
export { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '@svc/service-kit';

/** Appends one entry inside `tx` (the transaction of the change it records). */
export const appendAudit = (tx: Tx, entry: AuditEntryInput): Promise<string> =>
  appendAuditEntry(tx, entry);

/** The app's open reports counted per reason (an automatic block's reason, a dismissal's). */
export async function reportReasonCounts(tx: Tx, appId: string): Promise<ReasonCounts> {
  const rows = await tx.$queryRaw<Array<{ reason: keyof ReasonCounts; n: number }>>`
    SELECT reason::text AS reason, count(*)::int AS n FROM app_reports
    WHERE app_id = ${appId} AND resolved_at IS NULL GROUP BY reason`;
  return Object.fromEntries(rows.map((r) => [r.reason, r.n]));
}

export interface ListAuditQuery extends KitListAuditQuery {
  targetType?: AuditTargetType;
}

/** Entries newest first, by target, paginated by cursor (see listAuditEntries). */
export const listAudit = (db: PrismaClient | Tx, query: ListAuditQuery = {}): Promise<AuditPage> =>
  listAuditEntries(db, query);
