// Moderation of sites and chat (/api/moderation/*, moderators only: others get 403
// "Moderators only"), and their audit logs.
import type {
  AuditPageResponse,
  ChatAuditQuery,
  DeleteChatMessageResponse,
  HideSiteResponse,
  MuteChatSenderResponse,
  RestoreSiteResponse,
  SiteAuditQuery,
} from '@svc/types';
import { segment } from './query.js';
import type { Transport } from './transport.js';

export type SiteAuditQueryInput = Partial<SiteAuditQuery>;
export type ChatAuditQueryInput = Partial<ChatAuditQuery>;

const site = (id: string) => `/api/moderation/sites/${segment(id)}`;

export class SiteModerationApi {
  constructor(private readonly t: Transport) {}

  /** POST /api/moderation/sites/{id}/hide: gone from every public read (409 if hidden already). */
  hideSite(id: string, reason: string, signal?: AbortSignal): Promise<HideSiteResponse> {
    return this.t.call('POST', `${site(id)}/hide`, { auth: 'session', body: { reason }, signal });
  }

  /** POST /api/moderation/sites/{id}/restore: visible again (409 if not hidden). */
  restoreSite(id: string, signal?: AbortSignal): Promise<RestoreSiteResponse> {
    return this.t.call('POST', `${site(id)}/restore`, { auth: 'session', signal });
  }

  /** DELETE /api/moderation/messages/{id}: unlisted, and `message_deleted` reaches every client. */
  deleteMessage(id: string, signal?: AbortSignal): Promise<DeleteChatMessageResponse> {
    return this.t.call('DELETE', `/api/moderation/messages/${segment(id)}`, {
      auth: 'session',
      signal,
    });
  }

  /**
   * POST /api/moderation/chat/mutes: mutes the sender of message `messageId` for `minutes`;
   * `reason` (optional) is kept in the chat's audit log.
   */
  muteSender(
    messageId: string,
    minutes: number,
    reason?: string,
    signal?: AbortSignal,
  ): Promise<MuteChatSenderResponse> {
    return this.t.call('POST', '/api/moderation/chat/mutes', {
      auth: 'session',
      body:
        reason === undefined
          ? { sender: messageId, minutes }
          : { sender: messageId, minutes, reason },
      signal,
    });
  }

  /** GET /api/moderation/sites/audit: hides and restores, newest first; pass `next_cursor` as `cursor`. */
  siteAudit(query: SiteAuditQueryInput = {}, signal?: AbortSignal): Promise<AuditPageResponse> {
    return this.t.call('GET', '/api/moderation/sites/audit', { auth: 'session', query, signal });
  }

  /** GET /api/moderation/chat/audit: deletions and mutes, newest first; pass `next_cursor` as `cursor`. */
  chatAudit(query: ChatAuditQueryInput = {}, signal?: AbortSignal): Promise<AuditPageResponse> {
    return this.t.call('GET', '/api/moderation/chat/audit', { auth: 'session', query, signal });
  }
}
