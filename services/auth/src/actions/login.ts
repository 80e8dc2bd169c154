// The email-code login: send a code, verify it, find or create the user.
import { nanoid } from 'nanoid';
import { ERROR_MESSAGES, truncateText } from '@svc/types';
import { HttpError, badRequest, conflict, newId } from '@svc/service-kit';
import { baseUsername, usernameCandidate } from '../domain/default-username.js';
import {
  CODE_TTL_MS,
  EXPIRED_CODES_PER_SEND,
  MAX_WRONG_ATTEMPTS,
  codeMatches,
  generateCode,
  hashCode,
} from '../domain/login-code.js';
import type { Mailer } from '../clients/mailer.js';
import { isUniqueViolation, type AuthStore, type UserRecord } from '../store/store.js';

export function createLogin(deps: { store: AuthStore; mailer: Mailer; codeSecret: string; now?: () => Date }) {
  const { store, mailer, codeSecret } = deps;
  const now = deps.now ?? (() => new Date());

  async function createUserFor(email: string): Promise<UserRecord> {
    const base = baseUsername(email);
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        return await store.createUser({ id: newId(), email, username: usernameCandidate(base, attempt) });
      } catch (err) {
        if (isUniqueViolation(err, 'email')) {
          const existing = await store.findUserByEmail(email); // a parallel first login won
          if (existing) return existing;
        }
        if (!isUniqueViolation(err)) throw err;
      }
    }
    return store.createUser({ id: newId(), email, username: usernameCandidate(`${truncateText(base, 20)}-${nanoid(6)}`, 0) });
  }

  async function spendCode(email: string, code: string): Promise<void> {
    const storedHash = await store.spendAttempt(email, MAX_WRONG_ATTEMPTS, now());
    const ok =
      storedHash !== null &&
      codeMatches(codeSecret, email, code, storedHash) &&
      (await store.consumeCode(email, storedHash));
    if (!ok) throw badRequest(ERROR_MESSAGES.invalidOrExpiredCode);
  }

  return {
    async sendCode(email: string): Promise<void> {
      const code = generateCode();
      const at = now();
      await store.deleteExpiredCodes(at, EXPIRED_CODES_PER_SEND);
      await store.replaceCode(email, hashCode(codeSecret, email, code), new Date(at.getTime() + CODE_TTL_MS));
      try {
        await mailer.sendLoginCode(email, code);
      } catch {
        // Not a 2xx: the caller must know the email did not leave.
        throw new HttpError(502, 'The login email could not be sent; try again');
      }
    },

    /**
     * Spends the live code of `email` on `code`: single use, one of its wrong attempts
     * spent either way; 400 when it does not match (also: none, expired, out of attempts).
     */
    spendCode,

    async verify(email: string, code: string): Promise<UserRecord> {
      await spendCode(email, code);
      return (await store.findUserByEmail(email)) ?? createUserFor(email);
    },

    async setUsername(userId: string, username: string): Promise<UserRecord> {
      try {
        return await store.setUsername(userId, username);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(ERROR_MESSAGES.usernameTaken);
        throw err;
      }
    },
  };
}
export type Login = ReturnType<typeof createLogin>;
