-- Account deletion replaces a deleted user's id by a pseudonym in the audit entries that
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
