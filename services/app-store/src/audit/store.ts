// Writing and reading the append-only audit log (docs/decisions.md §9). appendAudit takes
// the caller's transaction so an entry commits with the change it records, or not at all.
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { AuditEntryInput, AuditState, AuditTargetType, ReasonCounts } from './entry.js';

type Tx = Prisma.TransactionClient;

export interface AuditEntry {
  /** the row's id (a decimal string), also the cursor of the page that ends with it */
  id: string;
  at: Date;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  reason: string;
  before: AuditState | null;
  after: AuditState | null;
}

export interface AuditPage {
  items: AuditEntry[];
  /** pass as `cursor` for the next (older) page; null on the last page */
  nextCursor: string | null;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

const json = (s: AuditState | null) => (s === null ? Prisma.DbNull : s);

/** Appends one entry inside `tx` (the transaction of the change it records). */
export async function appendAudit(tx: Tx, entry: AuditEntryInput): Promise<string> {
  const row = await tx.auditLog.create({
    data: {
      actor: entry.actor,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      reason: entry.reason,
      before: json(entry.before),
      after: json(entry.after),
    },
    select: { id: true },
  });
  return row.id.toString();
}

/** The app's open reports counted per reason (an automatic block's reason, a dismissal's). */
export async function reportReasonCounts(tx: Tx, appId: string): Promise<ReasonCounts> {
  const rows = await tx.$queryRaw<Array<{ reason: keyof ReasonCounts; n: number }>>`
    SELECT reason::text AS reason, count(*)::int AS n FROM app_reports
    WHERE app_id = ${appId} AND resolved_at IS NULL GROUP BY reason`;
  return Object.fromEntries(rows.map((r) => [r.reason, r.n]));
}

export interface ListAuditQuery {
  targetType?: AuditTargetType;
  /** only with targetType */
  targetId?: string;
  /** the nextCursor of the previous page */
  cursor?: string;
  limit?: number;
}

/**
 * Entries newest first (at, then id, both descending), optionally of one target type or one
 * target. Keyset pagination: a page starts after the cursor's row, so entries appended
 * meanwhile never shift or repeat the older pages. An unknown cursor gives an empty page.
 */
export async function listAudit(
  db: PrismaClient | Tx,
  query: ListAuditQuery = {},
): Promise<AuditPage> {
  const limit = Math.min(
    Math.max(Math.trunc(query.limit ?? AUDIT_PAGE_DEFAULT), 1),
    AUDIT_PAGE_MAX,
  );
  const where: Prisma.Sql[] = [];
  if (query.targetType !== undefined) where.push(Prisma.sql`target_type = ${query.targetType}`);
  if (query.targetId !== undefined) where.push(Prisma.sql`target_id = ${query.targetId}`);
  if (query.cursor !== undefined) {
    if (!/^[1-9][0-9]{0,18}$/.test(query.cursor)) throw new RangeError('invalid audit cursor');
    where.push(
      Prisma.sql`(at, id) < (SELECT c.at, c.id FROM audit_log c WHERE c.id = ${BigInt(query.cursor)})`,
    );
  }
  const rows = await db.$queryRaw<
    Array<{
      id: bigint;
      at: Date;
      actor: string;
      action: string;
      target_type: string;
      target_id: string;
      reason: string;
      before: AuditState | null;
      after: AuditState | null;
    }>
  >`SELECT id, at, actor, action, target_type, target_id, reason, before, after FROM audit_log
    ${where.length ? Prisma.sql`WHERE ${Prisma.join(where, ' AND ')}` : Prisma.empty}
    ORDER BY at DESC, id DESC LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit).map((r) => ({
    id: r.id.toString(),
    at: r.at,
    actor: r.actor,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    reason: r.reason,
    before: r.before,
    after: r.after,
  }));
  return {
    items,
    nextCursor: rows.length > limit ? (items[items.length - 1]?.id ?? null) : null,
  };
}
