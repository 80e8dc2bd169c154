// Test support for the append-only audit log (service-kit audit-log.ts): applies a service's
// migrations as a non-superuser owner role, in a fresh schema, with default privileges that
// would hand every table privilege to a second "service" role (as a deployment with its own
// roles might), then reports what each role may do on `audit_log` and what happens when the
// service role appends, updates, deletes and truncates. Tests assert on the result, so the
// same probe checks app-store's, sites' and chat's table.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { resolveDatabaseTarget } from '../data/database-url.js';
import { applyMigrationSql } from '../data/migrations.js';

export interface AuditLogRoleProbe {
  /** SELECT/INSERT/UPDATE/DELETE/TRUNCATE on audit_log per role */
  privileges: { owner: Record<string, boolean>; service: Record<string, boolean> };
  /** an INSERT by the service role went through */
  appended: boolean;
  /** UPDATE, DELETE and TRUNCATE by the service role: the error each raised (null: allowed) */
  changes: Record<'UPDATE' | 'DELETE' | 'TRUNCATE', { code: string; message: string } | null>;
  /**
   * The service role pseudonymised a user named by an entry (actor, target, after): the entry
   * as it then reads, or the error raised.
   */
  pseudonymised: { actor: string; target_id: string; after: unknown } | { code: string; message: string };
}

/** The user and pseudonym of the probe's pseudonymisation. */
export const PROBE_USER_ID = 'probeUser0123456789';
export const PROBE_PSEUDONYM = 'deleted-user-0123456789abcdef';

export async function probeAuditLogRoles(
  migrationsDir: string,
  databaseUrl: string,
): Promise<AuditLogRoleProbe> {
  const base = resolveDatabaseTarget(undefined, databaseUrl, 'public');
  const tag = randomBytes(4).toString('hex');
  const owner = `audit_owner_${tag}`;
  const service = `audit_rw_${tag}`;
  const schema = `t_audit_${tag}`;
  const { host, port, user, password, database } = base;
  const admin = new pg.Client({ host, port, user, password, database });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${owner}`);
    await admin.query(`CREATE ROLE ${service}`);
    await admin.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${owner}`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${service}`);
    await admin.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${owner} IN SCHEMA ${schema} GRANT ALL ON TABLES TO ${service}`,
    );
    await admin.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${owner} IN SCHEMA ${schema} GRANT USAGE ON SEQUENCES TO ${service}`,
    );
    // The owner applies the migrations, as `prisma migrate deploy` with the service's URL.
    await applyMigrationSql({ ...base, schema }, migrationsDir, owner);
    const table = `${schema}.audit_log`;
    const privilegesOf = async (role: string) => {
      const r = await admin.query<{ p: string; granted: boolean }>(
        `SELECT p, has_table_privilege($1, $2, p) AS granted
         FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p`,
        [role, table],
      );
      return Object.fromEntries(r.rows.map((row) => [row.p, row.granted]));
    };
    const privileges = { owner: await privilegesOf(owner), service: await privilegesOf(service) };
    await admin.query(`SET ROLE ${service}`);
    const attempt = async (sql: string) => {
      try {
        await admin.query(sql);
        return null;
      } catch (err) {
        const e = err as { code?: string; message: string };
        return { code: e.code ?? '', message: e.message };
      }
    };
    try {
      const appended =
        (await attempt(
          `INSERT INTO ${table} (actor, action, target_type, target_id) VALUES ('system', 'probe', 'probe', 'p')`,
        )) === null;
      const changes = {
        UPDATE: await attempt(`UPDATE ${table} SET reason = 'rewritten'`),
        DELETE: await attempt(`DELETE FROM ${table}`),
        TRUNCATE: await attempt(`TRUNCATE ${table}`),
      };
      await admin.query(
        `INSERT INTO ${table} (actor, action, target_type, target_id, after)
         VALUES ($1, 'probe', 'sender', $2, $3::jsonb)`,
        [PROBE_USER_ID, `user:${PROBE_USER_ID}`, JSON.stringify({ by: PROBE_USER_ID })],
      );
      let pseudonymised: AuditLogRoleProbe['pseudonymised'];
      try {
        await admin.query(`SELECT ${schema}.audit_log_pseudonymise($1, $2)`, [
          PROBE_USER_ID,
          PROBE_PSEUDONYM,
        ]);
        const row = await admin.query<{ actor: string; target_id: string; after: unknown }>(
          `SELECT actor, target_id, after FROM ${table} WHERE action = 'probe' AND target_type = 'sender'`,
        );
        pseudonymised = row.rows[0]!;
      } catch (err) {
        const e = err as { code?: string; message: string };
        pseudonymised = { code: e.code ?? '', message: e.message };
      }
      return { privileges, appended, changes, pseudonymised };
    } finally {
      await admin.query('RESET ROLE');
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    for (const role of [service, owner]) {
      await admin.query(`DROP OWNED BY ${role} CASCADE`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
    }
    await admin.end();
  }
}

/** A probe reduced to what a test compares: each refusal as 'permission denied' (SQLSTATE
 * 42501 with that message), 'allowed', or the other error's code and message. */
export interface AuditLogProbeFacts {
  privileges: AuditLogRoleProbe['privileges'];
  appended: boolean;
  changes: Record<keyof AuditLogRoleProbe['changes'], string>;
  pseudonymised: AuditLogRoleProbe['pseudonymised'];
}

export function auditLogProbeFacts(probe: AuditLogRoleProbe): AuditLogProbeFacts {
  const refusal = (e: { code: string; message: string } | null) =>
    e === null
      ? 'allowed'
      : e.code === '42501' && e.message.includes('permission denied')
        ? 'permission denied'
        : `${e.code}: ${e.message}`;
  return {
    privileges: probe.privileges,
    appended: probe.appended,
    changes: {
      UPDATE: refusal(probe.changes.UPDATE),
      DELETE: refusal(probe.changes.DELETE),
      TRUNCATE: refusal(probe.changes.TRUNCATE),
    },
    pseudonymised: probe.pseudonymised,
  };
}

const readAndAppend = { SELECT: true, INSERT: true, UPDATE: false, DELETE: false, TRUNCATE: false };

/** What `auditLogProbeFacts` gives for an append-only table: both roles may read and append,
 * neither may change, and the service role's changes are refused for want of privilege. A
 * service's test: `expect(auditLogProbeFacts(await probeAuditLogRoles(dir, url))).toEqual(AUDIT_LOG_APPEND_ONLY)`. */
export const AUDIT_LOG_APPEND_ONLY: AuditLogProbeFacts = {
  privileges: { owner: readAndAppend, service: readAndAppend },
  appended: true,
  changes: {
    UPDATE: 'permission denied',
    DELETE: 'permission denied',
    TRUNCATE: 'permission denied',
  },
  pseudonymised: {
    actor: PROBE_PSEUDONYM,
    target_id: `user:${PROBE_PSEUDONYM}`,
    after: { by: PROBE_PSEUDONYM },
  },
};

type AuditChange = keyof AuditLogRoleProbe['changes'];

/** UPDATE, DELETE and TRUNCATE on `audit_log` through `execute` (e.g. a Prisma client's
 * `$executeRawUnsafe`, as the database's own role): the trigger's words for each refusal,
 * else the error's message, or 'allowed'. */
export async function auditLogTriggerRefusals(
  execute: (sql: string) => PromiseLike<unknown>,
): Promise<Record<AuditChange, string>> {
  const attempt = async (sql: string) => {
    try {
      await execute(sql);
      return 'allowed';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return /audit_log is append-only: \w+ is not allowed/.exec(message)?.[0] ?? message;
    }
  };
  return {
    UPDATE: await attempt(`UPDATE audit_log SET reason = 'rewritten'`),
    DELETE: await attempt('DELETE FROM audit_log'),
    TRUNCATE: await attempt('TRUNCATE audit_log'),
  };
}

/** What `auditLogTriggerRefusals` gives when the triggers of AUDIT_LOG_MIGRATION_SQL stand. */
export const AUDIT_LOG_TRIGGER_REFUSALS: Record<AuditChange, string> = {
  UPDATE: 'audit_log is append-only: UPDATE is not allowed',
  DELETE: 'audit_log is append-only: DELETE is not allowed',
  TRUNCATE: 'audit_log is append-only: TRUNCATE is not allowed',
};
