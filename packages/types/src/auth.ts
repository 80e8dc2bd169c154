// Email-code login and the session shared by both interfaces (docs/decisions.md §2).
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

export const AuthMeResponse = z.object({ user: AuthUser });
export type AuthMeResponse = z.infer<typeof AuthMeResponse>;

export const SetUsernameBody = z.object({ username: Username });
export type SetUsernameBody = z.infer<typeof SetUsernameBody>;

export const SetUsernameResponse = z.object({ user: AuthUser });
export type SetUsernameResponse = z.infer<typeof SetUsernameResponse>;

export const LogoutResponse = SuccessResponse;
export type LogoutResponse = z.infer<typeof LogoutResponse>;

/** Claims of the ES256 `sn_token`; `jti` identifies the session for revocation on logout. */
export const JwtClaims = z.object({
  sub: Id,
  email: z.string(),
  username: z.string().min(1),
  iat: z.number().int().nonnegative(),
  exp: z.number().int().positive(),
  jti: z.string().min(1),
});
export type JwtClaims = z.infer<typeof JwtClaims>;
