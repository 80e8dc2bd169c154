// Email-code login and the session shared by both interfaces (docs/decisions/002-email-code-login-and-sessions.md).
import { z } from 'zod';
import { Id, SuccessResponse } from './common.js';

/** Session cookie of both interfaces. */
export const SESSION_COOKIE_NAME = 'sn_token';
/** 30 days, in seconds: JWT `exp - iat` and cookie Max-Age. */
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;
export const VERIFICATION_CODE_TTL_SECONDS = 10 * 60;
export const VERIFICATION_CODE_MAX_ATTEMPTS = 5;

/** Lower-cased so that limits "per email" and the user lookup agree on one spelling. */
export const Email = z.email().max(254).toLowerCase();
export type Email = z.infer<typeof Email>;

export const VerificationCode = z.string().regex(/^\d{6}$/, 'Code must be 6 digits');
export type VerificationCode = z.infer<typeof VerificationCode>;

/**
 * A username a user may choose: 3–32 letters of any script (with their combining marks,
 * needed by e.g. Devanagari), decimal digits, `_` or `-`. Counted in code points.
 */
export const Username = z
  .string()
  .trim()
  .normalize('NFC')
  .regex(/^[\p{L}\p{M}\p{Nd}_-]{3,32}$/u, 'Username must be 3–32 letters, digits, _ or -');
export type Username = z.infer<typeof Username>;

/**
 * User as returned by auth. `username` is loosely typed: the default one is derived from
 * the email's local part and may hold characters set-username would refuse.
 */
export const AuthUser = z.object({
  id: Id,
  email: z.string(),
  username: z.string().min(1),
});
export type AuthUser = z.infer<typeof AuthUser>;

export const SendCodeBody = z.object({ email: Email });
export type SendCodeBody = z.infer<typeof SendCodeBody>;

/** Same answer for every valid email: no account enumeration. */
export const SendCodeResponse = z.object({ sent: z.literal(true) });
export type SendCodeResponse = z.infer<typeof SendCodeResponse>;

export const VerifyBody = z.object({ email: Email, code: VerificationCode });
export type VerifyBody = z.infer<typeof VerifyBody>;

export const VerifyResponse = z.object({ user: AuthUser });
export type VerifyResponse = z.infer<typeof VerifyResponse>;

export const AuthMeResponse = z.object({
  user: AuthUser,
  is_moderator: z.boolean().meta({
    description:
      "Whether this session acts as a moderator (the role every service checks; docs/decisions/016-moderator-role.md)",
  }),
});
export type AuthMeResponse = z.infer<typeof AuthMeResponse>;

export const SetUsernameBody = z.object({ username: Username });
export type SetUsernameBody = z.infer<typeof SetUsernameBody>;

export const SetUsernameResponse = z.object({ user: AuthUser });
export type SetUsernameResponse = z.infer<typeof SetUsernameResponse>;

/** The answer of logout and of sign out everywhere (docs/decisions/032-sign-out-everywhere.md). */
export const LogoutResponse = SuccessResponse;
export type LogoutResponse = z.infer<typeof LogoutResponse>;

/**
 * Delete my account (docs/decisions/035-account-deletion.md): a login code just sent to the
 * account's address, a fresh proof that a stolen cookie alone does not give.
 */
export const DeleteAccountBody = z.object({ code: VerificationCode });
export type DeleteAccountBody = z.infer<typeof DeleteAccountBody>;

export const DeleteAccountResponse = z.object({ deleted: z.literal(true) });
export type DeleteAccountResponse = z.infer<typeof DeleteAccountResponse>;

/** Claims of the ES256 `sn_token`; `jti` identifies the session for revocation on logout. */
export const JwtClaims = z.object({
  sub: Id,
  email: z.string(),
  username: z.string().min(1),
  iat: z.number().int().nonnegative(),
  exp: z.number().int().positive(),
  jti: z.string().min(1),
  /** Present (true) only in a moderator's session; services also honour auth's role override in Redis. */
  mod: z.literal(true).optional(),
  /**
   * The user's session epoch when the token was signed (absent: 0). A session whose epoch is
   * below the user's current one was signed before a sign-out everywhere and is refused
   * (docs/decisions/032-sign-out-everywhere.md).
   */
  epoch: z.number().int().nonnegative().optional(),
});
export type JwtClaims = z.infer<typeof JwtClaims>;

// ---- moderators (docs/decisions/016-moderator-role.md) --------------------------------------

/** The 403 body of every moderator-only endpoint of every service. */
export const MODERATORS_ONLY = 'Moderators only';

/** `/api/auth/moderators/{email}`: the user's email (any case; compared lower-cased). */
export const ModeratorEmailParams = z.object({ email: Email });
export type ModeratorEmailParams = z.infer<typeof ModeratorEmailParams>;

/** A moderator: listed in `MODERATOR_EMAILS` (configuration) or granted by a moderator. */
export const Moderator = z.object({
  email: z.string(),
  /** Null for a listed email that has not logged in yet. */
  user_id: Id.nullable(),
  username: z.string().min(1).nullable(),
  source: z.enum(['configuration', 'grant']),
  /** Who granted it (user id); null for the configuration. */
  granted_by: Id.nullable(),
  granted_at: z.iso.datetime().nullable(),
});
export type Moderator = z.infer<typeof Moderator>;

export const ModeratorListResponse = z.object({ moderators: z.array(Moderator) });
export type ModeratorListResponse = z.infer<typeof ModeratorListResponse>;

export const GrantModeratorResponse = z.object({ moderator: Moderator });
export type GrantModeratorResponse = z.infer<typeof GrantModeratorResponse>;

export const RevokeModeratorResponse = SuccessResponse;
export type RevokeModeratorResponse = z.infer<typeof RevokeModeratorResponse>;
