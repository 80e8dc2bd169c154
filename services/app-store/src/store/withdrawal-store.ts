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

/**
 * Prisma's 5 s default is for one app; all of an author's apps (some queries each, under
 * their row locks) take longer when they are many, and the work is the same when redone.
 */
export const AUTHOR_WITHDRAWAL_TIMEOUT_MS = 60_000;

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

/** Every app of one author, in id order (two callers lock them in the same order). */
const lockByAuthor = async (tx: Tx, authorId: string): Promise<LockedApp[]> =>
  toLocked(
    await tx.$queryRaw<LockedRow[]>`
      SELECT id, slug, status::text AS status, author_id FROM apps
      WHERE author_id = ${authorId} ORDER BY id FOR UPDATE`,
  );

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

export interface WithdrawOpts {
  now: Date;
  permanent: boolean;
}

/** The rules of one app, applied under its row's lock by the caller. */
async function applyLocked(
  tx: Tx,
  app: LockedApp | undefined,
  callerId: string,
  opts: WithdrawOpts,
): Promise<WithdrawResult> {
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
}

export interface AuthorWithdrawal {
  /** how many apps the author had, in any status */
  apps: number;
  /** whether one of them was listed (the listing caches must be cleared after the commit) */
  wasListed: boolean;
}

/**
 * Every app of one author withdrawn, or with `permanent` deleted for good, each as the author's
 * own withdrawal of it does, inside the caller's transaction (account deletion runs it with
 * the rest of the user's data). Idempotent: a deleted app is no longer found.
 */
export async function withdrawAuthorAppsIn(
  tx: Tx,
  authorId: string,
  opts: WithdrawOpts,
): Promise<AuthorWithdrawal> {
  const apps = await lockByAuthor(tx, authorId);
  let wasListed = false;
  for (const app of apps) {
    const result = await applyLocked(tx, app, authorId, opts);
    if (result.kind === 'done' && result.wasListed) wasListed = true;
  }
  return { apps: apps.length, wasListed };
}

export function createWithdrawalStore(db: PrismaClient) {
  return {
    /** The author's withdrawal (and with `permanent`, the deletion for good) of one app. */
    async withdraw(slug: string, callerId: string, opts: WithdrawOpts): Promise<WithdrawResult> {
      return db.$transaction(async (tx) =>
        applyLocked(tx, await lockBySlug(tx, slug), callerId, opts),
      );
    },

    /** Every app of an author, in any status, in one transaction (withdrawAuthorAppsIn). */
    async withdrawAuthor(authorId: string, opts: WithdrawOpts): Promise<AuthorWithdrawal> {
      return db.$transaction((tx) => withdrawAuthorAppsIn(tx, authorId, opts), {
        timeout: AUTHOR_WITHDRAWAL_TIMEOUT_MS,
      });
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
