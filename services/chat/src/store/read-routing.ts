// Where each read of chat goes: a read replica or the primary
// (docs/decisions/037-read-replicas.md; the kit's read-router.ts). The one place that says it.
// GET /api/messages tolerates a little lag: a new message reaches the open pages as an event
// at once (realtime), the list is what a page loads first. It reads no session, so no
// caller's last write applies: any usable replica.
// Not listed, so on the primary: posting, likes, deletes and mutes with what they read, the
// moderators' audit log, the data export and the account deletion, the system-message worker.
import {
  createReadRouter,
  type Metrics,
  type ReadRouter,
  type ReadRouting,
} from '@svc/service-kit';
import type { ChatStore } from './store.js';

export const CHAT_READS = {
  /** GET /api/messages: the newest messages. */
  messages: 'replica',
} as const satisfies Record<string, ReadRouting>;

export type ChatReads = ReadRouter<ChatStore, keyof typeof CHAT_READS>;

/** Every read on the primary (no replica configured; tests). */
export function primaryReads(primary: ChatStore, registry?: Metrics['registry']): ChatReads {
  return createReadRouter({ service: 'chat', routing: CHAT_READS, primary, registry });
}
