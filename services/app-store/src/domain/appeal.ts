// An author's appeal of a block (docs/decisions/025-block-appeals-and-notices.md): pure rules, so the store
// applies them under the app row's lock and the routes only translate the outcome to HTTP.
import type { AppStatus } from '@svc/types';

export const NOT_YOURS = 'App not found';
export const NOT_BLOCKED_FOR_APPEAL = 'App is not blocked';
export const ALREADY_APPEALED = 'This block was already appealed';

export type AppealDecision =
  | { kind: 'appeal'; blockKey: bigint }
  | { kind: 'not-found' }
  | { kind: 'conflict'; message: string };

/**
 * The block an appeal belongs to: the audit entry of the block (apps.block_audit_id), or 0
 * for an app blocked before blocks were recorded (it gets one appeal, like any block).
 */
export const blockKey = (blockAuditId: bigint | null): bigint => blockAuditId ?? 0n;

/**
 * Only the author may appeal (anyone else is told the app does not exist, as for other
 * authors' apps), only a blocked app, and once per block: `appealed` says whether this block
 * already has an appeal (the unique index decides a race the same way).
 */
export function decideAppeal(
  app: { authorId: string; status: AppStatus; blockAuditId: bigint | null } | undefined,
  callerId: string,
  appealed: boolean,
): AppealDecision {
  if (!app || app.authorId !== callerId) return { kind: 'not-found' };
  if (app.status !== 'blocked') return { kind: 'conflict', message: NOT_BLOCKED_FOR_APPEAL };
  if (appealed) return { kind: 'conflict', message: ALREADY_APPEALED };
  return { kind: 'appeal', blockKey: blockKey(app.blockAuditId) };
}

/** Who blocked the app, as its author is told: the reports (the system) or a moderator. */
export const blockedBy = (actor: string): 'reports' | 'moderator' =>
  actor === 'system' ? 'reports' : 'moderator';
