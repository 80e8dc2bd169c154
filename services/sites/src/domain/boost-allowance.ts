// Daily boost allowance (docs/decisions/005-sites.md): visitors 1 per IP, logged-in users 3 per user,
// counted per UTC day; `credits` in the answer = boosts left today. The numbers are the
// endpoint catalogue's (`rateLimit` of boostSite: `limit`, and `session.limit` with a session).
import { ENDPOINTS } from '@svc/types';

export function dailyBoostLimit(loggedIn: boolean): number {
  const rule = ENDPOINTS.find((e) => e.operationId === 'boostSite')?.rateLimit;
  const limit = loggedIn ? rule?.session?.limit : rule?.limit;
  if (limit === undefined) throw new Error('boostSite: no daily limit in the endpoint catalogue');
  return limit;
}

export type BoostDecision =
  { allowed: true; creditsAfter: number } | { allowed: false; creditsAfter: 0 };

export function decideBoost(loggedIn: boolean, usedToday: number): BoostDecision {
  const limit = dailyBoostLimit(loggedIn);
  if (usedToday >= limit) return { allowed: false, creditsAfter: 0 };
  return { allowed: true, creditsAfter: limit - usedToday - 1 };
}

/** The UTC calendar day of `now` as `YYYY-MM-DD` (the `boosts.day` column). */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The first day of boosts kept: yesterday (UTC). A boost row is read only to count the
 * caller's boosts of today and holds who boosted (a user id or an IP hash), so older rows
 * are deleted; yesterday stays for a clock a little behind at midnight. The site keeps its
 * `boost_count`.
 */
export function firstKeptBoostDay(now: Date): string {
  return utcDay(new Date(now.getTime() - 86_400_000));
}

/** Seconds until the next UTC midnight, when the allowance refills (Retry-After). */
export function secondsUntilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
