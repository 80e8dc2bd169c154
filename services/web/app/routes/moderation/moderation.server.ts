// The moderation pages' server side: who may see them (moderators; others the HTML 403 page,
// readers without a session the login page), running the forms' commands against the
// moderator endpoints, and reading an audit source. The services check the role again on
// every call: the page hides nothing the API would allow.
import { ApiError, type SvcClient } from '@svc/client';
import type { AuditPageResponse, AuditQuery, ChatAuditQuery, SiteAuditQuery } from '@svc/types';
import { data, redirect, type RouterContextProvider } from 'react-router';
import { failureOf, type Failure } from '../../components/apps/errors';
import { hasSession, serverApi } from '../../lib/api.server';
import { loginHref } from '../../lib/safe-next';
import type { AuditSource } from './audit-sources';
import { parseCommand, type Command, type Intent, type Problems } from './commands';

function toLogin(request: Request): Response {
  const url = new URL(request.url);
  return redirect(loginHref(`${url.pathname}${url.search}`), 302);
}

/** A failed API call while loading a page: 401 → log in, 403 → the 403 page, 404 → 404, else 429/503. */
export function loaderFailure(request: Request, err: unknown): never {
  if (err instanceof ApiError) {
    if (err.status === 401) throw toLogin(request);
    if (err.status === 403 || err.status === 404 || err.status === 429) throw data(null, { status: err.status });
  }
  throw data(null, { status: 503 });
}

/**
 * An API client with a moderator's session, or a thrown answer: no session or an expired one
 * → /login?next=<this page> (302); a session without the role → the HTML 403 page.
 */
export async function requireModerator(request: Request, context: Readonly<RouterContextProvider>): Promise<SvcClient> {
  if (!hasSession(request)) throw toLogin(request);
  const api = serverApi(request, context);
  let isModerator: boolean;
  try {
    isModerator = (await api.auth.me()).is_moderator;
  } catch (err) {
    return loaderFailure(request, err);
  }
  if (!isModerator) throw data(null, { status: 403 });
  return api;
}

/** What a moderation form's post left for the page (serialisable action data). */
export type ActionResult =
  | { intent: Intent | null; ok: false; problems: Problems; failure?: Failure }
  | { intent: 'restore' | 'block' | 'dismiss'; ok: true; status: string; resolved: number }
  | { intent: 'hide-site' | 'restore-site'; ok: true; siteId: string }
  | { intent: 'delete-message'; ok: true; messageId: string }
  | { intent: 'mute-sender'; ok: true; messageId: string; until: string; senderKind: 'user' | 'visitor' };

async function run(api: SvcClient, command: Command, slug: string | undefined): Promise<ActionResult> {
  switch (command.intent) {
    case 'restore':
    case 'block':
    case 'dismiss': {
      if (slug === undefined) return { intent: command.intent, ok: false, problems: {}, failure: { status: 404, message: 'No app' } };
      const done =
        command.intent === 'restore'
          ? await api.appModeration.restore(slug, command.reason)
          : command.intent === 'block'
            ? await api.appModeration.block(slug, command.reason)
            : await api.appModeration.dismiss(slug, command.reason === undefined ? {} : { reason: command.reason });
      return { intent: command.intent, ok: true, status: done.status, resolved: done.resolved_reports };
    }
    case 'hide-site':
      await api.moderation.hideSite(command.siteId, command.reason);
      return { intent: command.intent, ok: true, siteId: command.siteId };
    case 'restore-site':
      await api.moderation.restoreSite(command.siteId);
      return { intent: command.intent, ok: true, siteId: command.siteId };
    case 'delete-message':
      await api.moderation.deleteMessage(command.messageId);
      return { intent: command.intent, ok: true, messageId: command.messageId };
    case 'mute-sender': {
      const muted = await api.moderation.muteSender(command.messageId, command.minutes);
      return { intent: command.intent, ok: true, messageId: command.messageId, until: muted.muted_until, senderKind: muted.sender_kind };
    }
  }
}

/**
 * A moderation form's post (with JavaScript through a fetcher, without as a plain form):
 * checked first (field problems, nothing sent), then sent; the API's refusal comes back as a
 * `Failure` the page words. `slug`: the app of an app page's forms.
 */
export async function moderationAction(
  request: Request,
  context: Readonly<RouterContextProvider>,
  slug?: string,
): Promise<ActionResult> {
  const api = await requireModerator(request, context);
  const parsed = parseCommand(await request.formData());
  if (!parsed.ok) return parsed;
  try {
    return await run(api, parsed.command, slug);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw toLogin(request);
    return { intent: parsed.command.intent, ok: false, problems: {}, failure: failureOf(err) };
  }
}

/** One page of one audit source (the target type is one of the source's, audit-sources.ts). */
export interface AuditRead {
  target_type?: string;
  target_id?: string;
  cursor?: string;
  limit: number;
}

/** How each audit source is read (every source answers with the same page shape). */
const AUDIT_READERS: Record<AuditSource, (api: SvcClient, query: AuditRead) => Promise<AuditPageResponse>> = {
  apps: (api, query) => api.appModeration.audit({ ...query, target_type: query.target_type as AuditQuery['target_type'] }),
  sites: (api, query) => api.moderation.siteAudit({ ...query, target_type: query.target_type as SiteAuditQuery['target_type'] }),
  chat: (api, query) => api.moderation.chatAudit({ ...query, target_type: query.target_type as ChatAuditQuery['target_type'] }),
};

export function readAudit(api: SvcClient, source: AuditSource, query: AuditRead): Promise<AuditPageResponse> {
  return AUDIT_READERS[source](api, query);
}
