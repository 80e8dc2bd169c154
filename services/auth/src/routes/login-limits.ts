// The login limits of the catalogue (`LOGIN_LIMITS` in @svc/types), as the auth routes
// apply them. Per email address (docs/decisions/002-email-code-login-and-sessions.md): 3 codes and 5 verifications a minute. Per
// client network (IPv4 address or IPv6 /64; our addition): codes for at most 30 different
// addresses an hour, and at most 60 failed verifications an hour across all addresses.
import type { Request, Response } from 'express';
import type { Redis } from '@svc/service-kit';
import { LOGIN_LIMITS } from '@svc/types';
import { byNetwork, distinctLimit, pointsOf, rateLimit } from '@svc/service-kit';

const [sendCodeNetwork] = LOGIN_LIMITS.sendCode.also;
const [verifyNetwork] = LOGIN_LIMITS.verify.also;

export function createLoginLimits(deps: { redis: Redis; prefix: string }) {
  const { redis, prefix } = deps;
  const perEmail = (name: string, rule: { limit: number; window: 'minute' }) =>
    rateLimit({ redis, prefix, name, ...pointsOf(rule), key: () => undefined });
  const sendCodePerEmail = perEmail('auth-send-code', LOGIN_LIMITS.sendCode);
  const verifyPerEmail = perEmail('auth-verify', LOGIN_LIMITS.verify);
  const addressesPerNetwork = distinctLimit({
    redis,
    prefix,
    name: 'auth-send-code-addresses',
    limit: sendCodeNetwork.limit,
    durationSeconds: pointsOf(sendCodeNetwork).durationSeconds,
  });
  // Every verification takes a point and a success gives it back, so what stays counted is
  // exactly the failures, and parallel guesses cannot overshoot the limit.
  const failuresPerNetwork = rateLimit({
    redis,
    prefix,
    name: 'auth-verify-failures',
    ...pointsOf(verifyNetwork),
    key: () => undefined,
  });

  return {
    /** Before a code is sent: false when a 429 was answered. */
    async admitSendCode(req: Request, res: Response, email: string): Promise<boolean> {
      return (
        (await sendCodePerEmail.consume(email, res)) &&
        (await addressesPerNetwork.admit(byNetwork(req), email, res))
      );
    },

    /**
     * Before a code is checked: false when a 429 was answered. Otherwise call the returned
     * `succeeded` once the code proved right, so the attempt does not count as a failure.
     */
    async admitVerify(req: Request, res: Response, email: string): Promise<false | { succeeded: () => Promise<void> }> {
      if (!(await verifyPerEmail.consume(email, res))) return false;
      const network = byNetwork(req);
      if (!(await failuresPerNetwork.consume(network, res, { quiet: true }))) return false;
      return { succeeded: () => failuresPerNetwork.refund(network) };
    },
  };
}
export type LoginLimits = ReturnType<typeof createLoginLimits>;
