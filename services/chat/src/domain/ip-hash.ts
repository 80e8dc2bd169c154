// Chat never stores an IP address, only a keyed hash of it (the kit's hashIp; see
// prisma/schema.prisma for why keyed), and derives its visible identities from it.
import { createHmac } from 'node:crypto';
import { normalizeIp } from '@svc/service-kit';

/** Liker identity: the user when logged in, else the hashed IP (never colliding kinds). */
export function likerKey(userId: string | undefined, ipHash: string): string {
  return userId ? userLikerKey(userId) : `ip:${ipHash}`;
}

/** The liker key of a logged-in user. */
export const userLikerKey = (userId: string): string => `user:${userId}`;

/**
 * A short tag that tells two visitors from the same city apart; it changes every UTC day
 * so a visitor cannot be followed across days by it.
 */
export function visitorTag(secret: string, ip: string, now: Date): string {
  const day = now.toISOString().slice(0, 10);
  return createHmac('sha256', secret)
    .update(`visitor:${day}:${normalizeIp(ip)}`)
    .digest('hex')
    .slice(0, 4)
    .toUpperCase();
}
