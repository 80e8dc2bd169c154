// The append-only audit log of moderation (docs/decisions/009-moderation-audit-log.md), one mechanism for every
// service that moderates: app-store (apps), sites (hidden sites) and chat (deleted messages,
// mutes). Each keeps an `audit_log` table in its own schema, created by a migration whose
// text is AUDIT_LOG_MIGRATION_SQL (each service's migration test compares them), and writes
// and reads it through the functions below, so the shape, the append-only guard, the order
// and the cursor are the same everywhere.
//
// The functions take any Prisma client or interactive transaction (only `$queryRawUnsafe`
// is used): appendAuditEntry must get the transaction of the change it records, so the
// entry commits with that change or not at all.
import type {
  AuditPageResponse,
  AuditTargetRemoval,
  ExportAuditEntry,
  ExportModeration,
} from '@svc/types';
import { badRequest } from '../http/errors.js';

/** The actor of automatic actions; otherwise the acting user's auth id. */
export const SYSTEM_ACTOR = 'system';

export const AUDIT_LOG_TABLE = 'audit_log';

/** A target's relevant state before or after an action (flat, JSON scalars only). */
export type AuditState = Record<string, string | number | boolean | null>;

export interface AuditEntryInput {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  reason: string;
  before: AuditState | null;
  after: AuditState | null;
}

export interface AuditEntry extends AuditEntryInput {
  /** the row's id (a decimal string), also the cursor of the page that ends with it */
  id: string;
  at: Date;
  /** Set by the service when the target no longer exists, and why (not a column). */
  targetRemoved?: AuditTargetRemoval;
}

export interface AuditPage {
  items: AuditEntry[];
  /** pass as `cursor` for the next (older) page; null on the last page */
  nextCursor: string | null;
}

export interface ListAuditQuery {
  targetType?: string;
  /** only with targetType */
  targetId?: string;
  /** the nextCursor of the previous page */
  cursor?: string;
  limit?: number;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

/** What the functions need of a Prisma client or transaction. */
export interface AuditSql {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

const json = (s: AuditState | null) => (s === null ? null : JSON.stringify(s));

/** A row as the queries below select it. */
interface AuditRow {
  id: string;
  at: Date | string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  reason: string;
  before: AuditState | null;
  after: AuditState | null;
}

const fromRow = (r: AuditRow): AuditEntry => ({
  id: r.id,
  at: new Date(r.at),
  actor: r.actor,
  action: r.action,
  targetType: r.target_type,
  targetId: r.target_id,
  reason: r.reason,
  before: r.before,
  after: r.after,
});

/** Appends one entry inside `tx` (the transaction of the change it records); its id. */
export async function appendAuditEntry(tx: AuditSql, entry: AuditEntryInput): Promise<string> {
  const rows = await tx.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO ${AUDIT_LOG_TABLE} (actor, action, target_type, target_id, reason, before, after)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb) RETURNING id::text AS id`,
    entry.actor,
    entry.action,
    entry.targetType,
    entry.targetId,
    entry.reason,
    json(entry.before),
    json(entry.after),
  );
  return rows[0]!.id;
}

/** A cursor is a row id: a positive decimal that fits a BIGINT. RangeError otherwise. */
export function parseAuditCursor(cursor: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(cursor) || BigInt(cursor) > 9223372036854775807n)
    throw new RangeError('invalid audit cursor');
  return cursor;
}

/**
 * Entries newest first (at, then id, both descending), optionally of one target type or one
 * target. Keyset pagination: a page starts after the cursor's row, so entries appended
 * meanwhile never shift or repeat the older pages. An unknown cursor gives an empty page.
 */
export async function listAuditEntries(
  db: AuditSql,
  query: ListAuditQuery = {},
): Promise<AuditPage> {
  const limit = Math.min(
    Math.max(Math.trunc(query.limit ?? AUDIT_PAGE_DEFAULT), 1),
    AUDIT_PAGE_MAX,
  );
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.targetType !== undefined) where.push(`target_type = ${param(query.targetType)}`);
  if (query.targetId !== undefined) where.push(`target_id = ${param(query.targetId)}`);
  if (query.cursor !== undefined) {
    const cursor = param(parseAuditCursor(query.cursor));
    where.push(
      `(at, id) < (SELECT c.at, c.id FROM ${AUDIT_LOG_TABLE} c WHERE c.id = ${cursor}::bigint)`,
    );
  }
  const rows = await db.$queryRawUnsafe<AuditRow[]>(
    `SELECT id::text AS id, at, actor, action, target_type, target_id, reason, before, after
     FROM ${AUDIT_LOG_TABLE}
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT ${param(limit + 1)}::int`,
    ...values,
  );
  const items = rows.slice(0, limit).map(fromRow);
  return {
    items,
    nextCursor: rows.length > limit ? (items[items.length - 1]?.id ?? null) : null,
  };
}

/** The targets that make an entry about a user: their things, by target type. */
export interface UserAuditTargets {
  [targetType: string]: readonly string[];
}

/**
 * Every entry a user wrote (`actor`) or that is about one of `targets`, oldest first, for
 * the user's data export (no pagination: the export holds everything).
 */
export async function listUserAuditEntries(
  db: AuditSql,
  userId: string,
  targets: UserAuditTargets,
): Promise<AuditEntry[]> {
  const values: unknown[] = [userId];
  const about = Object.entries(targets)
    .filter(([, ids]) => ids.length > 0)
    .map(([targetType, ids]) => {
      values.push(targetType, ids);
      return `(target_type = $${values.length - 1} AND target_id = ANY($${values.length}::text[]))`;
    });
  const rows = await db.$queryRawUnsafe<AuditRow[]>(
    `SELECT id::text AS id, at, actor, action, target_type, target_id, reason, before, after
     FROM ${AUDIT_LOG_TABLE}
     WHERE ${['actor = $1', ...about].join(' OR ')}
     ORDER BY at, id`,
    ...values,
  );
  return rows.map(fromRow);
}

/**
 * A user's entries as their data export shows them (pure): those they wrote, and those
 * about them written by the system or a moderator, whose id becomes a role. `targetId`
 * rewrites a target where it would show what must stay inside (a keyed hash).
 */
export function exportModeration(
  service: ExportAuditEntry['service'],
  userId: string,
  entries: readonly AuditEntry[],
  targetId: (e: AuditEntry) => string = (e) => e.targetId,
): ExportModeration {
  const view = (e: AuditEntry): ExportAuditEntry => ({
    service,
    id: e.id,
    at: e.at.toISOString(),
    action: e.action,
    target_type: e.targetType,
    target_id: targetId(e),
    reason: e.reason,
    before: e.before,
    after: e.after,
  });
  return {
    by_you: entries.filter((e) => e.actor === userId).map(view),
    about_you: entries
      .filter((e) => e.actor !== userId)
      .map((e) => ({
        ...view(e),
        actor: e.actor === SYSTEM_ACTOR ? ('system' as const) : ('moderator' as const),
      })),
  };
}

/** The fields every audit query schema of the catalogue has (target_type per service). */
export interface AuditQueryFields<T extends string = string> {
  target_type?: T;
  target_id?: string;
  cursor?: string;
  limit?: number;
}

/**
 * The HTTP side of every `GET .../audit`: the query parsed with the service's schema (its
 * target types), 400 for target_id without target_type or a malformed cursor, the page in
 * the catalogue's AuditPageResponse shape.
 */
export async function auditPageFor<T extends string>(
  schema: { parse(input: unknown): AuditQueryFields<T> },
  rawQuery: unknown,
  list: (query: ListAuditQuery & { targetType?: T }) => Promise<AuditPage>,
): Promise<AuditPageResponse> {
  const query = schema.parse(rawQuery);
  if (query.target_id !== undefined && query.target_type === undefined)
    throw badRequest('target_id needs target_type');
  let page: AuditPage;
  try {
    page = await list({
      targetType: query.target_type,
      targetId: query.target_id,
      cursor: query.cursor,
      limit: query.limit,
    });
  } catch (err) {
    if (err instanceof RangeError) throw badRequest('Invalid cursor');
    throw err;
  }
  return { entries: page.items.map((e) => auditEntryView(e)), next_cursor: page.nextCursor };
}

/** One stored entry in the catalogue's shape; `actor` replaces the stored one (the author's view). */
export function auditEntryView<A extends string = string>(
  e: AuditEntry,
  actor?: A,
): Omit<AuditPageResponse['entries'][number], 'actor'> & { actor: A } {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: actor ?? (e.actor as A),
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    reason: e.reason,
    before: e.before,
    after: e.after,
    ...(e.targetRemoved ? { target_removed: e.targetRemoved } : {}),
  };
}

/**
 * The migration that creates `audit_log` in a service's schema, byte for byte (app-store's
 * 20261123040000_audit_log came first, sites and chat carry the same text, and each service's
 * migration test checks it). Triggers refuse UPDATE, DELETE and TRUNCATE for every role
 * (SQLSTATE 42501), and the privileges are revoked from the migrating role, PUBLIC and any
 * role granted them by default privileges. A changed text needs a new migration in every
 * service, never an edit of an applied one.
 */
export const AUDIT_LOG_MIGRATION_SQL =
  String.raw`-- The append-only audit log of moderation (docs/decisions.md §9): every automatic block and,
-- later, every moderator action. Append-only is enforced by the database, not by the code:
--   1. triggers raise on UPDATE, DELETE and TRUNCATE for every role, superusers included,
--      whatever role the service connects as (tests and development use a superuser),
--   2. UPDATE, DELETE and TRUNCATE are revoked from PUBLIC, from the role applying this
--      migration (the service's own role: migrations run with the service's database URL)
--      and from any role already granted them (e.g. a dedicated service role given
--      privileges by ALTER DEFAULT PRIVILEGES), so such a role is refused before any trigger.
-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_log_actor_check" CHECK ("actor" <> ''),
    CONSTRAINT "audit_log_action_check" CHECK ("action" <> '')
);

-- Moderators page through one target's entries, or all of them, newest first.
CREATE INDEX "audit_log_target_idx" ON "audit_log"("target_type", "target_id", "at" DESC, "id" DESC);
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at" DESC, "id" DESC);

-- Hand-written: no semicolon may appear in this file outside the end of a statement, since
-- the pg driver adapter that runs ` +
  '`' +
  String.raw`prisma migrate deploy` +
  '`' +
  String.raw` splits the script on every
-- semicolon (see the init migration). The PL/pgSQL bodies below therefore spell their
-- statement ends as the escape \x3B inside E'' strings.
-- The function lives in this schema (the migration's search_path). SQLSTATE 42501, as for a
-- refused privilege.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger
LANGUAGE plpgsql AS E'
BEGIN
  RAISE EXCEPTION ''audit_log is append-only: % is not allowed'', TG_OP
    USING ERRCODE = ''insufficient_privilege''\x3B
END
';

CREATE TRIGGER "audit_log_no_update_delete"
  BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();

CREATE TRIGGER "audit_log_no_truncate"
  BEFORE TRUNCATE ON "audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();

-- Harmless for a superuser (privileges do not bind it) and when no other role has grants.
REVOKE UPDATE, DELETE, TRUNCATE ON "audit_log" FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE ON "audit_log" FROM CURRENT_USER;
DO E'
DECLARE
  grantee_name name\x3B
BEGIN
  FOR grantee_name IN
    SELECT DISTINCT r.rolname
    FROM pg_class c
    CROSS JOIN LATERAL aclexplode(c.relacl) acl
    JOIN pg_roles r ON r.oid = acl.grantee
    WHERE c.oid = ''audit_log''::regclass
      AND acl.privilege_type IN (''UPDATE'', ''DELETE'', ''TRUNCATE'')
  LOOP
    EXECUTE format(''REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM %I'', grantee_name)\x3B
  END LOOP\x3B
END
';
`;

/**
 * The migration that lets account deletion (docs/decisions/035-account-deletion.md) replace a
 * deleted user's id by a pseudonym in the entries that name them, byte for byte the same in
 * every service (each service's migration test checks it). It is the one change the log
 * allows, and only through `audit_log_pseudonymise(user_id, pseudonym)`:
 *   - the trigger lets an UPDATE through only while that function runs (a transaction-local
 *     setting says which id becomes which pseudonym) and only when the new row is the old one
 *     with that replacement in actor, target_id, before and after: nothing else may change,
 *   - the function runs as the migrating role (SECURITY DEFINER), which alone is granted
 *     UPDATE on those four columns; the service role still has no UPDATE privilege at all.
 */
export const AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL =
  String.raw`-- Account deletion replaces a deleted user's id by a pseudonym in the audit entries that
-- name them (docs/decisions/035-account-deletion.md), the one change the append-only log
-- allows: only inside audit_log_pseudonymise(), only that replacement, and only on the
-- columns that can hold an id. Semicolons inside the PL/pgSQL bodies are spelt \x3B (see
-- the audit_log migration).
CREATE OR REPLACE FUNCTION "audit_log_append_only"() RETURNS trigger
LANGUAGE plpgsql AS E'
DECLARE
  pair text := current_setting(''svc.audit_pseudonymise'', true)\x3B
  uid text\x3B
  pseudonym text\x3B
BEGIN
  IF TG_OP = ''UPDATE'' AND coalesce(pair, '''') <> '''' THEN
    uid := split_part(pair, '' '', 1)\x3B
    pseudonym := split_part(pair, '' '', 2)\x3B
    IF NEW.id = OLD.id AND NEW.at = OLD.at AND NEW.action = OLD.action
       AND NEW.target_type = OLD.target_type AND NEW.reason = OLD.reason
       AND NEW.actor = replace(OLD.actor, uid, pseudonym)
       AND NEW.target_id = replace(OLD.target_id, uid, pseudonym)
       AND NEW.before IS NOT DISTINCT FROM replace(OLD.before::text, uid, pseudonym)::jsonb
       AND NEW.after IS NOT DISTINCT FROM replace(OLD.after::text, uid, pseudonym)::jsonb THEN
      RETURN NEW\x3B
    END IF\x3B
  END IF\x3B
  RAISE EXCEPTION ''audit_log is append-only: % is not allowed'', TG_OP
    USING ERRCODE = ''insufficient_privilege''\x3B
END
';

-- Returns how many entries it rewrote. The user id must look like one (letters, digits, _ or
-- -, 8 characters at least), so that the replacement cannot touch unrelated text.
CREATE FUNCTION "audit_log_pseudonymise"(p_user_id text, p_pseudonym text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS E'
DECLARE
  changed bigint\x3B
BEGIN
  IF p_user_id !~ ''^[0-9A-Za-z_-]{8,128}$'' OR p_pseudonym !~ ''^deleted-user-[0-9a-f]{16}$'' THEN
    RAISE EXCEPTION ''audit_log_pseudonymise: malformed user id or pseudonym''
      USING ERRCODE = ''invalid_parameter_value''\x3B
  END IF\x3B
  PERFORM set_config(''svc.audit_pseudonymise'', p_user_id || '' '' || p_pseudonym, true)\x3B
  UPDATE audit_log
     SET actor = replace(actor, p_user_id, p_pseudonym),
         target_id = replace(target_id, p_user_id, p_pseudonym),
         before = replace(before::text, p_user_id, p_pseudonym)::jsonb,
         after = replace(after::text, p_user_id, p_pseudonym)::jsonb
   WHERE strpos(actor, p_user_id) > 0 OR strpos(target_id, p_user_id) > 0
      OR strpos(before::text, p_user_id) > 0 OR strpos(after::text, p_user_id) > 0\x3B
  GET DIAGNOSTICS changed = ROW_COUNT\x3B
  PERFORM set_config(''svc.audit_pseudonymise'', '''', true)\x3B
  RETURN changed\x3B
END
';

-- The function's owner (the migrating role) may change only the columns that can hold an id;
-- the table-level UPDATE stays revoked from every role.
GRANT UPDATE ("actor", "target_id", "before", "after") ON "audit_log" TO CURRENT_USER;
`;

/**
 * Replaces `userId` by `pseudonym` in every entry that names the user (as actor, in the
 * target, or inside before/after), through the database function of
 * AUDIT_LOG_PSEUDONYMISE_MIGRATION_SQL; how many entries it rewrote. Idempotent.
 */
export async function pseudonymiseAuditEntries(
  tx: AuditSql,
  userId: string,
  pseudonym: string,
): Promise<number> {
  const rows = await tx.$queryRawUnsafe<Array<{ n: string }>>(
    `SELECT ${AUDIT_LOG_TABLE}_pseudonymise($1, $2)::text AS n`,
    userId,
    pseudonym,
  );
  return Number(rows[0]!.n);
}
