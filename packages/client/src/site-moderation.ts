// Moderation of sites and chat (/api/moderation/*, moderators only: others get 403
// "Moderators only").
import type {
  DeleteChatMessageResponse,
  HideSiteResponse,
  MuteChatSenderResponse,
  RestoreSiteResponse,
} from '@svc/types';
import { segment } from './query.js';
import type { Transport } from './transport.js';

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

  /** POST /api/moderation/chat/mutes: mutes the sender of message `messageId` for `minutes`. */
  muteSender(
    messageId: string,
    minutes: number,
    signal?: AbortSignal,
  ): Promise<MuteChatSenderResponse> {
    return this.t.call('POST', '/api/moderation/chat/mutes', {
      auth: 'session',
      body: { sender: messageId, minutes },
      signal,
    });
  }
}
