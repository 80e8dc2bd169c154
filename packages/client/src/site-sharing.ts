// The site-sharing interface (/api): sites, bookmarks, chat, translation, daily background.
import type {
  BookmarkListResponse,
  BoostSiteResponse,
  ChatMessageListQuery,
  ChatMessageListResponse,
  ClaimSiteResponse,
  CreateBookmarkResponse,
  DailyBgResponse,
  GetSiteResponse,
  LikeChatMessageResponse,
  MySubmissionsResponse,
  PostChatMessageResponse,
  RecordClickResponse,
  SiteListQuery,
  SiteListResponse,
  SiteTagsResponse,
  SubmitSiteBody,
  SubmitSiteResponse,
  TranslateBody,
  TranslateResponse,
} from '@svc/types';
import type { z } from 'zod';
import { segment } from './query.js';
import type { Transport } from './transport.js';

export type SiteListInput = Partial<SiteListQuery>;
export type SubmitSiteInput = z.input<typeof SubmitSiteBody>;
export type ChatListInput = Partial<ChatMessageListQuery>;
export type TranslateInput = z.input<typeof TranslateBody>;

const site = (id: string) => `/api/sites/${segment(id)}`;

export class SitesApi {
  constructor(private readonly t: Transport) {}

  /**
   * GET /api/sites: 60 per page, `hot` or `recent`. `page` reads up to page 166; to read on
   * (at any depth, as fast as a first page), pass each answer's `next_cursor` as `cursor`.
   */
  list(query: SiteListInput = {}, signal?: AbortSignal): Promise<SiteListResponse> {
    return this.t.call('GET', '/api/sites', { auth: 'none', query, signal });
  }

  /**
   * GET /api/sites/{id}: one site, the same object as in the listing (`is_claimed`
   * included). An unknown id is an ApiError 404 `Site not found`.
   */
  get(id: string, signal?: AbortSignal): Promise<GetSiteResponse> {
    return this.t.call('GET', site(id), { auth: 'none', signal });
  }

  /** POST /api/sites: `isNew` tells a new site (201) from a known one (200). */
  submit(body: SubmitSiteInput, signal?: AbortSignal): Promise<SubmitSiteResponse> {
    return this.t.call('POST', '/api/sites', { auth: 'optional-session', body, signal });
  }

  tags(signal?: AbortSignal): Promise<SiteTagsResponse> {
    return this.t.call('GET', '/api/sites/tags', { auth: 'none', signal });
  }

  /** Boosts left today are in `credits` (1/day per IP for visitors, 3 for users). */
  boost(id: string, signal?: AbortSignal): Promise<BoostSiteResponse> {
    return this.t.call('POST', `${site(id)}/boost`, { auth: 'optional-session', signal });
  }

  /** Needs `<meta name="svc-verify" content="{id}">` in the site's head. */
  claim(id: string, signal?: AbortSignal): Promise<ClaimSiteResponse> {
    return this.t.call('POST', `${site(id)}/claim`, { auth: 'optional-session', signal });
  }

  click(id: string, signal?: AbortSignal): Promise<RecordClickResponse> {
    return this.t.call('POST', `/api/clicks/${segment(id)}`, { auth: 'none', signal });
  }

  /** The caller's submissions, newest first (session). */
  mySubmissions(signal?: AbortSignal): Promise<MySubmissionsResponse> {
    return this.t.call('GET', '/api/sites/my-submissions', { auth: 'session', signal });
  }
}

export class BookmarksApi {
  constructor(private readonly t: Transport) {}

  list(signal?: AbortSignal): Promise<BookmarkListResponse> {
    return this.t.call('GET', '/api/bookmarks', { auth: 'session', signal });
  }

  add(siteId: string, signal?: AbortSignal): Promise<CreateBookmarkResponse> {
    return this.t.call('POST', '/api/bookmarks', {
      auth: 'session',
      body: { site_id: siteId },
      signal,
    });
  }

  remove(siteId: string, signal?: AbortSignal): Promise<void> {
    return this.t.call('DELETE', `/api/bookmarks/${segment(siteId)}`, { auth: 'session', signal });
  }
}

export class ChatApi {
  constructor(private readonly t: Transport) {}

  /** The newest `limit` messages (default 50, max 100), oldest first. */
  list(query: ChatListInput = {}, signal?: AbortSignal): Promise<ChatMessageListResponse> {
    return this.t.call('GET', '/api/messages', { auth: 'none', query, signal });
  }

  /** Posts as the logged-in user, or under a geo-based visitor name. */
  send(content: string, signal?: AbortSignal): Promise<PostChatMessageResponse> {
    return this.t.call('POST', '/api/messages', {
      auth: 'optional-session',
      body: { content },
      signal,
    });
  }

  like(id: string, signal?: AbortSignal): Promise<LikeChatMessageResponse> {
    return this.t.call('POST', `/api/messages/${segment(id)}/like`, {
      auth: 'optional-session',
      signal,
    });
  }
}

export function translate(
  t: Transport,
  body: TranslateInput,
  signal?: AbortSignal,
): Promise<TranslateResponse> {
  return t.call('POST', '/api/translate', { auth: 'none', body, signal });
}

export function dailyBackground(t: Transport, signal?: AbortSignal): Promise<DailyBgResponse> {
  return t.call('GET', '/api/daily-bg', { auth: 'none', signal });
}
