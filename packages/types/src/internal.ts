// Calls between services, never routed by the gateway: paths under /internal (the gateway
// keeps that segment for itself and answers 404), each call carrying the shared
// INTERNAL_TOKEN (docs/decisions/034-data-export.md).
import { z } from 'zod';
import { Id } from './common.js';

/** Header carrying the shared INTERNAL_TOKEN on internal calls. */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
/** INTERNAL_TOKEN outside production when unset (production requires the setting). */
export const DEV_INTERNAL_TOKEN = 'dev-internal-token';
/** Shortest INTERNAL_TOKEN production accepts. */
export const INTERNAL_TOKEN_MIN_LENGTH = 16;

/** The first path segment of every internal endpoint. */
export const INTERNAL_PATH_SEGMENT = 'internal';

/**
 * The services that keep data about a user beside auth, each answering the per-user
 * internal paths below (auth asks them all; one that cannot answer fails the whole call).
 */
export const USER_DATA_SERVICES = ['app-store', 'sites', 'chat'] as const;
export type UserDataService = (typeof USER_DATA_SERVICES)[number];

/** `GET`: what the service holds about the user, as its part of the data export. */
export const INTERNAL_USER_EXPORT_PATH = '/internal/users/{id}/export';

/** The path of one user's export (`{id}` filled in, percent-encoded). */
export const internalUserExportPath = (userId: string): string =>
  INTERNAL_USER_EXPORT_PATH.replace('{id}', encodeURIComponent(userId));

/** `{id}` of the per-user internal paths: an auth user id. */
export const InternalUserParams = z.object({ id: Id });
export type InternalUserParams = z.infer<typeof InternalUserParams>;

/**
 * `DELETE` with an InternalUserDeletionBody: the service removes or anonymises what it holds
 * about the user (docs/decisions/035-account-deletion.md). Idempotent: 204 each time.
 */
export const INTERNAL_USER_PATH = '/internal/users/{id}';

/** The path of one user's internal deletion (`{id}` filled in, percent-encoded). */
export const internalUserPath = (userId: string): string =>
  INTERNAL_USER_PATH.replace('{id}', encodeURIComponent(userId));

/**
 * What a deleted user becomes where a trace of an action must stay (moderation audit
 * entries, reports): `deleted-user-` and 16 hex digits, drawn at random once per deletion, so
 * it links the entries of one deleted person to each other and to nobody.
 */
export const DeletedUserPseudonym = z
  .string()
  .regex(/^deleted-user-[0-9a-f]{16}$/, 'deleted-user- and 16 hex digits');
export type DeletedUserPseudonym = z.infer<typeof DeletedUserPseudonym>;

export const InternalUserDeletionBody = z.object({ pseudonym: DeletedUserPseudonym });

/**
 * What a user id a deletion may name looks like: the services' ids (21 letters and digits)
 * and a margin. The audit logs' pseudonymisation refuses anything else, so that replacing
 * the id cannot touch unrelated text; such an id names no user, and the deletion is a 404.
 */
export const DELETABLE_USER_ID = /^[0-9A-Za-z_-]{8,128}$/;
export type InternalUserDeletionBody = z.infer<typeof InternalUserDeletionBody>;

/**
 * Auth's queue of account deletions: one job per service in USER_DELETION_SERVICES, named
 * after it, retried until the service has answered its internal deletion with 204.
 */
export const USER_DELETION_QUEUE = 'user-deletion';

export const UserDeletionJob = z.object({
  user_id: Id,
  pseudonym: DeletedUserPseudonym,
  service: z.enum(USER_DATA_SERVICES),
});
export type UserDeletionJob = z.infer<typeof UserDeletionJob>;

/** A deletion job's id: one per user and service, so a relay that posts twice queues it once. */
export const userDeletionJobId = (userId: string, service: UserDataService): string =>
  `${USER_DELETION_QUEUE}-${service}-${userId}`;
