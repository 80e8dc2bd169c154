// auth's data access: users, login codes and moderator grants (Prisma, schema `auth`).
import { INSERT_OUTBOX_JOB_SQL } from '@svc/service-kit';
import {
  USER_DATA_SERVICES,
  USER_DELETION_QUEUE,
  userDeletionJobId,
  type UserDeletionJob,
} from '@svc/types';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

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

    /** Deletes up to `limit` codes expired before `now` (skipping rows another call holds); returns how many. */
    async deleteExpiredCodes(now: Date, limit: number): Promise<number> {
      return db.$executeRaw`
        DELETE FROM login_codes WHERE email IN (
          SELECT email FROM login_codes WHERE expires_at < ${now}
          ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
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

    hasModeratorGrant: async (userId: string) =>
      (await db.moderatorGrant.count({ where: { userId } })) > 0,
    /**
     * Grants (`grantedBy` set; idempotent, a second grant keeps the first one's author and
     * date) or revokes (null) the role, serialised per user by a transaction lock, and runs
     * `publish` (the override every service reads) before the commit: concurrent changes
     * publish in the order they commit, and a failed publish changes nothing.
     */
    async setModeratorGrant(
      userId: string,
      grantedBy: string | null,
      publish: () => Promise<void>,
    ): Promise<{ grantedBy: string; createdAt: Date } | null> {
      return db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`moderator:${userId}`}))`;
        const grant = grantedBy
          ? await tx.moderatorGrant.upsert({
              where: { userId },
              create: { userId, grantedBy },
              update: {},
              select: { grantedBy: true, createdAt: true },
            })
          : (await tx.moderatorGrant.deleteMany({ where: { userId } }), null);
        await publish();
        return grant;
      });
    },
    listModeratorGrants: () =>
      db.moderatorGrant.findMany({
        orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
        select: { grantedBy: true, createdAt: true, user: { select: userFields } },
      }),
    findUsersByEmail: (emails: string[]) =>
      db.user.findMany({ where: { email: { in: emails } }, select: userFields }),

    /**
     * Deletes the account in one transaction (docs/decisions/035-account-deletion.md): the
     * user with their own grant, the login code of their address, their name on the grants
     * they made (the pseudonym instead), and one user-deletion job per service for the
     * outbox relay. False when there was no such user (nothing written).
     */
    async deleteUser(id: string, pseudonym: string): Promise<boolean> {
      return db.$transaction(async (tx) => {
        const [user] = await tx.$queryRaw<Array<{ email: string }>>`
          DELETE FROM users WHERE id = ${id} RETURNING email`;
        if (!user) return false;
        await tx.loginCode.deleteMany({ where: { email: user.email } });
        await tx.moderatorGrant.updateMany({ where: { grantedBy: id }, data: { grantedBy: pseudonym } });
        for (const service of USER_DATA_SERVICES) {
          const job: UserDeletionJob = { user_id: id, pseudonym, service };
          await tx.$executeRawUnsafe(
            INSERT_OUTBOX_JOB_SQL,
            USER_DELETION_QUEUE,
            service,
            userDeletionJobId(id, service),
            JSON.stringify(job),
          );
        }
        return true;
      });
    },

    /**
     * What auth holds about one user, for their data export: the account with its own
     * grant, the grants they made, and the login code waiting for their address (its hash
     * is not read). null when there is no such user.
     */
    async userExportRows(id: string) {
      const user = await db.user.findUnique({
        where: { id },
        select: {
          ...userFields,
          createdAt: true,
          updatedAt: true,
          moderatorGrant: { select: { grantedBy: true, createdAt: true } },
        },
      });
      if (!user) return null;
      const [grantsGiven, pendingCode] = await Promise.all([
        db.moderatorGrant.findMany({
          where: { grantedBy: id },
          orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
          select: { userId: true, createdAt: true },
        }),
        db.loginCode.findUnique({
          where: { email: user.email },
          select: { createdAt: true, expiresAt: true, attempts: true },
        }),
      ]);
      return { user, grantsGiven, pendingCode };
    },
  };
}
export type UserExportRows = NonNullable<Awaited<ReturnType<AuthStore['userExportRows']>>>;
export type AuthStore = ReturnType<typeof createAuthStore>;
