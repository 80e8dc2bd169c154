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
