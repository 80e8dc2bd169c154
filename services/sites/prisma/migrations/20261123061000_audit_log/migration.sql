-- The append-only audit log of moderation (docs/decisions.md §9): every automatic block and,
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
-- the pg driver adapter that runs `prisma migrate deploy` splits the script on every
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
