// Withdrawals and deletions for good (docs/decisions/033-withdraw-an-app.md). Both lock the
// app row like a report or a moderator's action (store.ts, moderation-store.ts), so a report,
// a block or a PATCH racing a withdrawal comes entirely before or after it, and each writes
// its audit entry in the same transaction. Deleting the row deletes its reports, keys,
// installs and appeals (foreign keys ON DELETE CASCADE); audit entries stay (append-only).
import type { AppStatus } from '@svc/types';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { SYSTEM_ACTOR, deletionEntry, withdrawalEntry } from '../domain/audit-entry.js';
import { decideWithdrawal, leavesListing, purgeAt } from '../domain/withdrawal.js';
import { appendAudit } from './audit-store.js';

type Tx = Prisma.TransactionClient;

export type WithdrawResult =
  | { kind: 'not-found' }
  | { kind: 'forbidden' }
  | { kind: 'done'; wasListed: boolean; deletedForGood: boolean };

interface LockedApp {
  id: string;
  slug: string;
  status: AppStatus;
  authorId: string;
}

type LockedRow = { id: string; slug: string; status: AppStatus; author_id: string };
const toLocked = (rows: LockedRow[]): LockedApp[] =>
  rows.map((r) => ({ id: r.id, slug: r.slug, status: r.status, authorId: r.author_id }));

const lockBySlug = async (tx: Tx, slug: string): Promise<LockedApp | undefined> =>
  toLocked(
    await tx.$queryRaw<LockedRow[]>`
      SELECT id, slug, status::text AS status, author_id FROM apps WHERE slug = ${slug} FOR UPDATE`,
  )[0];

/** Withdrawn apps due for deletion; rows another sweep holds are skipped. */
const lockDue = async (tx: Tx, now: Date, limit: number): Promise<LockedApp[]> =>
  toLocked(
    await tx.$queryRaw<LockedRow[]>`
      SELECT id, slug, status::text AS status, author_id FROM apps
      WHERE status = 'withdrawn' AND purge_at <= ${now}
      ORDER BY purge_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
  );

/**
 * Withdraws a live app: status, times, its keys revoked (a key is refused from the next
 * request), its open appeal closed, its slug reserved; the audit entry by its author.
 */
async function withdrawLocked(tx: Tx, app: LockedApp, now: Date): Promise<void> {
  const until = purgeAt(now);
  await tx.app.update({
    where: { id: app.id },
    data: { status: 'withdrawn', withdrawnAt: now, purgeAt: until },
  });
  await tx.apiKey.updateMany({ where: { appId: app.id, revokedAt: null }, data: { revokedAt: now } });
  await tx.appAppeal.updateMany({ where: { appId: app.id, closedAt: null }, data: { closedAt: now } });
  await tx.slugReservation.upsert({
    where: { slug: app.slug },
    create: { slug: app.slug, reservedUntil: until },
    update: { reservedUntil: until },
  });
  await appendAudit(
    tx,
    withdrawalEntry({ authorId: app.authorId, appId: app.id, before: app.status, purgeAt: until }),
  );
}

/** Deletes a withdrawn app's row (and by cascade what hangs on it), with its audit entry. */
async function deleteLocked(tx: Tx, app: LockedApp, actor: string): Promise<void> {
  await appendAudit(tx, deletionEntry({ actor, appId: app.id }));
  await tx.app.delete({ where: { id: app.id } });
}

export function createWithdrawalStore(db: PrismaClient) {
  return {
    /** The author's withdrawal (and with `permanent`, the deletion for good) of one app. */
    async withdraw(
      slug: string,
      callerId: string,
      opts: { now: Date; permanent: boolean },
    ): Promise<WithdrawResult> {
      return db.$transaction(async (tx) => {
        const app = await lockBySlug(tx, slug);
        const decision = decideWithdrawal(app, callerId, opts.permanent);
        if (decision.kind !== 'apply') return decision;
        const found = app!;
        if (decision.withdraw) await withdrawLocked(tx, found, opts.now);
        if (decision.deleteForGood) await deleteLocked(tx, found, callerId);
        return {
          kind: 'done',
          wasListed: leavesListing(found.status),
          deletedForGood: decision.deleteForGood,
        };
      });
    },

    /** The slugs of every app of an author, in any status (to withdraw them all). */
    async slugsOf(authorId: string): Promise<string[]> {
      const rows = await db.app.findMany({ where: { authorId }, select: { slug: true } });
      return rows.map((r) => r.slug);
    },

    /**
     * Deletes up to `limit` withdrawn apps whose purge_at has passed, each with its audit
     * entry by `system`. Rows another sweep holds are skipped (SKIP LOCKED), so replicas
     * sweeping at once delete each app once. Returns how many were deleted.
     */
    async purgeDue(now: Date, limit: number): Promise<number> {
      return db.$transaction(async (tx) => {
        const due = await lockDue(tx, now, limit);
        for (const app of due) await deleteLocked(tx, app, SYSTEM_ACTOR);
        return due.length;
      });
    },

    /** Deletes the slug reservations that have ended; returns how many. */
    async expireReservations(now: Date): Promise<number> {
      const { count } = await db.slugReservation.deleteMany({
        where: { reservedUntil: { lte: now } },
      });
      return count;
    },

    /** Withdrawn apps whose purge_at passed `slack` ago or more (the sweep is behind). */
    async overdue(now: Date, slackMs: number): Promise<number> {
      return db.app.count({
        where: { status: 'withdrawn', purgeAt: { lte: new Date(now.getTime() - slackMs) } },
      });
    },
  };
}
export type WithdrawalStore = ReturnType<typeof createWithdrawalStore>;
