// What Redis holds about sessions: auth writes it, every service's session middleware reads
// it in one round trip (docs/decisions/032-sign-out-everywhere.md).
//
// - `auth:revoked:{jti}`: one session logged out, until it would have expired.
// - Per user, two keys with the hash tag `{user id}`, so that on a Redis Cluster they share a
//   slot and one MGET reads both: `auth:user:{id}:epoch`, the user's session epoch (a sign-out
//   everywhere starts a new one), and `auth:user:{id}:role`, the moderator role override
//   (docs/decisions/016-moderator-role.md).
import type { Redis } from '../redis/redis.js';
import { SESSION_TTL_SECONDS, type SessionClaims } from './session-token.js';

export const revocationKey = (prefix: string, jti: string) => `${prefix}auth:revoked:${jti}`;

/** The user's session epoch: sessions signed in an earlier epoch are refused. */
export const sessionEpochKey = (prefix: string, userId: string) =>
  `${prefix}auth:user:{${userId}}:epoch`;

/**
 * The moderator role of a user as auth last changed it ('1' granted, '0' revoked). It
 * overrides the `mod` claim of every session of that user, so a grant or revoke takes effect
 * at once in open sessions. It lives as long as a session can, so that every token signed
 * before the change has expired when it goes; tokens signed after carry the right claim.
 */
export const moderatorRoleKey = (prefix: string, userId: string) =>
  `${prefix}auth:user:{${userId}}:role`;

/**
 * The override's former key, in a slot of its own. Nothing writes it; the middleware reads
 * it as a fallback until the last one has expired, SESSION_TTL after its write
 * (docs/decisions/032-sign-out-everywhere.md, "Migration of the role override").
 */
export const formerModeratorRoleKey = (prefix: string, userId: string) =>
  `${prefix}auth:moderator:${userId}`;

/**
 * How long an epoch is kept after it starts: until every session signed before it has
 * expired, plus an hour for clocks of services that run behind Redis's.
 */
export const SESSION_EPOCH_TTL_SECONDS = SESSION_TTL_SECONDS + 3600;

/** Auth's side of the override: records a grant (true) or a revoke (false) for every open session. */
export async function setModeratorRole(
  redis: Redis,
  prefix: string,
  userId: string,
  isModerator: boolean,
): Promise<void> {
  await redis.set(
    moderatorRoleKey(prefix, userId),
    isModerator ? '1' : '0',
    'EX',
    SESSION_TTL_SECONDS,
  );
}

/**
 * Turns an override the user has into a grant, keeping its life; creates none. For a
 * configured moderator, whose role an override left by an earlier revoke must not hide.
 */
export async function confirmModeratorRole(
  redis: Redis,
  prefix: string,
  userId: string,
): Promise<void> {
  await Promise.all([
    redis.set(moderatorRoleKey(prefix, userId), '1', 'KEEPTTL', 'XX'),
    redis.set(formerModeratorRoleKey(prefix, userId), '1', 'KEEPTTL', 'XX'),
  ]);
}

/** Marks a session revoked until it would have expired anyway. */
export async function revokeSession(
  redis: Redis,
  prefix: string,
  claims: SessionClaims,
): Promise<void> {
  const ttl = Math.max(1, claims.exp - Math.floor(Date.now() / 1000));
  await redis.set(revocationKey(prefix, claims.jti), '1', 'EX', ttl);
}

/**
 * The next epoch: Redis's clock in milliseconds, and always above the current epoch (two
 * sign-outs in one millisecond, or a clock behind the last one, still move it on). Redis's
 * clock rather than a service's: the epoch key may expire, and the next epoch must then still
 * be above every epoch a living session carries, whichever replica signed it.
 */
const START_EPOCH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local epoch = math.max(current + 1, now)
redis.call('SET', KEYS[1], string.format('%d', epoch), 'EX', ARGV[1])
return epoch`;

/**
 * Sign out everywhere: starts a new session epoch for the user, so that every session signed
 * before (every device, this one included) is refused by every service from its next
 * request on. Sessions signed afterwards carry the new epoch and are valid. Answers the new
 * epoch. Auth calls it for `POST /api/auth/logout-all`, and when an account is deleted.
 */
export async function revokeAllSessions(
  redis: Redis,
  prefix: string,
  userId: string,
): Promise<number> {
  return Number(
    await redis.eval(START_EPOCH, 1, sessionEpochKey(prefix, userId), SESSION_EPOCH_TTL_SECONDS),
  );
}

/** A stored epoch as a number: 0 when there is none, NaN when it is not a whole number. */
function epochValue(stored: string | null): number {
  if (stored === null) return 0;
  return /^\d{1,16}$/.test(stored) ? Number(stored) : Number.NaN;
}

/**
 * The epoch a session signed now belongs to, for its `epoch` claim. Throws when the stored
 * value is not a number (nothing but a hand edit writes one), rather than sign a session
 * that every service would refuse.
 */
export async function currentSessionEpoch(
  redis: Redis,
  prefix: string,
  userId: string,
): Promise<number> {
  const epoch = epochValue(await redis.get(sessionEpochKey(prefix, userId)));
  if (Number.isNaN(epoch)) throw new Error(`the session epoch of user ${userId} is not a number`);
  return epoch;
}

/**
 * The rule: a session is current when it was signed in the user's current epoch or a later
 * one. A token without the claim is of epoch 0. An unreadable stored epoch refuses every
 * session (fail closed).
 */
export function sessionIsCurrent(
  claims: Pick<SessionClaims, 'epoch'>,
  storedEpoch: string | null,
): boolean {
  return (claims.epoch ?? 0) >= epochValue(storedEpoch);
}

export interface SessionState {
  /** Neither logged out nor signed before the user's last sign-out everywhere. */
  valid: boolean;
  /** The moderator role override, when auth has written one ('1' or '0'). */
  role: string | null;
}

/**
 * Everything the request path needs, in one round trip: the revocation of this session, and
 * the user's epoch and role override (one MGET: one slot). The former role key is a third
 * command of the same round trip. On a Redis Cluster the commands go to at most three masters
 * in parallel, each with keys of one slot.
 */
export async function readSessionState(
  redis: Redis,
  prefix: string,
  claims: SessionClaims,
): Promise<SessionState> {
  const [revoked, [role = null, epoch = null], formerRole] = await Promise.all([
    redis.get(revocationKey(prefix, claims.jti)),
    redis.mget(moderatorRoleKey(prefix, claims.sub), sessionEpochKey(prefix, claims.sub)),
    redis.get(formerModeratorRoleKey(prefix, claims.sub)),
  ]);
  return { valid: revoked === null && sessionIsCurrent(claims, epoch), role: role ?? formerRole };
}
