// Moderation of apps (/api/v1/moderation/*, moderators only: others get 403 "Moderators only").
import type {
  AppReportHistoryResponse,
  AuditPageResponse,
  AuditQuery,
  DismissReportsBody,
  ModerationActionResponse,
  ModerationQueueQuery,
  ModerationQueueResponse,
} from '@svc/types';
import type { z } from 'zod';
import { segment } from './query.js';
import type { Transport } from './transport.js';

/** Query numbers are numbers here (the schema coerces them from strings on the server). */
export type ModerationQueueInput = Partial<ModerationQueueQuery>;
export type AuditQueryInput = Partial<AuditQuery>;
export type DismissReportsInput = z.input<typeof DismissReportsBody>;

const app = (slug: string) => `/api/v1/moderation/apps/${segment(slug)}`;

export class AppModerationApi {
  constructor(private readonly t: Transport) {}

  /** GET /api/v1/moderation/reports: apps with open reports, newest report first. */
  queue(query: ModerationQueueInput = {}, signal?: AbortSignal): Promise<ModerationQueueResponse> {
    return this.t.call('GET', '/api/v1/moderation/reports', { auth: 'session', query, signal });
  }

  /** GET /api/v1/moderation/apps/{slug}/reports: the app's reports, open and resolved. */
  reports(slug: string, signal?: AbortSignal): Promise<AppReportHistoryResponse> {
    return this.t.call('GET', `${app(slug)}/reports`, { auth: 'session', signal });
  }

  /** POST .../restore: blocked → approved; the open reports are resolved (409 if not blocked). */
  restore(slug: string, reason: string, signal?: AbortSignal): Promise<ModerationActionResponse> {
    return this.t.call('POST', `${app(slug)}/restore`, {
      auth: 'session',
      body: { reason },
      signal,
    });
  }

  /** POST .../block: block by hand (409 if already blocked). */
  block(slug: string, reason: string, signal?: AbortSignal): Promise<ModerationActionResponse> {
    return this.t.call('POST', `${app(slug)}/block`, { auth: 'session', body: { reason }, signal });
  }

  /** POST .../dismiss: resolve the open reports without blocking. */
  dismiss(
    slug: string,
    body: DismissReportsInput = {},
    signal?: AbortSignal,
  ): Promise<ModerationActionResponse> {
    return this.t.call('POST', `${app(slug)}/dismiss`, { auth: 'session', body, signal });
  }

  /** GET /api/v1/moderation/audit: newest first; pass `next_cursor` as `cursor`. */
  audit(query: AuditQueryInput = {}, signal?: AbortSignal): Promise<AuditPageResponse> {
    return this.t.call('GET', '/api/v1/moderation/audit', { auth: 'session', query, signal });
  }
}
