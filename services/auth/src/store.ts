// auth's data access: users and login codes (Prisma, schema `auth`).
import { Prisma, type PrismaClient } from './generated/prisma/client.js';

export type AuthDb = PrismaClient;
export type UserRecord = { id: string; email: string; username: string };

const userFields = { id: true, email: true, username: true } as const;

export const isUniqueViolation = (err: unknown, field?: string): boolean =>
  err instanceof Prisma.PrismaClientKnownRequestError &&
  err.code === 'P2002' &&
  (field === undefined || JSON.stringify(err.meta ?? {}).includes(field));

export function createAuthStore(db: AuthDb) {
  return {
    /** Stores a new code for the email; any earlier code for it dies here. */
    async replaceCode(email: string, codeHash: string, expiresAt: Date): Promise<void> {
      await db.loginCode.upsert({
        where: { email },
        create: { email, codeHash, expiresAt },
        update: { codeHash, expiresAt, attempts: 0, createdAt: new Date() },
      });
    },

    /**
     * Spends one attempt on the live code and returns its hash; null when there is no
     * live code (none, expired, or out of attempts). The increment is atomic, so parallel
     * guesses cannot exceed the limit.
     */
    async spendAttempt(email: string, maxAttempts: number, now: Date): Promise<string | null> {
      const { count } = await db.loginCode.updateMany({
        where: { email, expiresAt: { gt: now }, attempts: { lt: maxAttempts } },
        data: { attempts: { increment: 1 } },
      });
      if (count === 0) return null;
      const row = await db.loginCode.findUnique({ where: { email }, select: { codeHash: true } });
      return row?.codeHash ?? null;
    },

    /** Single use: only one caller can delete the code it matched. */
    async consumeCode(email: string, codeHash: string): Promise<boolean> {
      const { count } = await db.loginCode.deleteMany({ where: { email, codeHash } });
      return count === 1;
    },

    findUserByEmail: (email: string) => db.user.findUnique({ where: { email }, select: userFields }),
    findUserById: (id: string) => db.user.findUnique({ where: { id }, select: userFields }),
    createUser: (data: UserRecord) => db.user.create({ data, select: userFields }),
    setUsername: (id: string, username: string) =>
      db.user.update({ where: { id }, data: { username }, select: userFields }),
  };
}
export type AuthStore = ReturnType<typeof createAuthStore>;
