// SvcClient: one object for both interfaces of the platform, served from one origin.
import type { DailyBgResponse, TranslateResponse } from '@svc/types';
import { AppModerationApi } from './app-moderation.js';
import { AppsApi, MeApi } from './app-store.js';
import { AuthApi } from './auth.js';
import { SiteModerationApi } from './site-moderation.js';
import { subscribe, type SubscribeOptions, type Subscription } from './realtime.js';
import {
  BookmarksApi,
  ChatApi,
  SitesApi,
  dailyBackground,
  translate,
  type TranslateInput,
} from './site-sharing.js';
import { Transport, type TransportOptions } from './transport.js';

export type SvcClientOptions = TransportOptions;

export class SvcClient {
  private readonly t: Transport;
  readonly apps: AppsApi;
  readonly me: MeApi;
  /** Moderators only: the app-store's report queue, restore, block, dismiss, audit log. */
  readonly appModeration: AppModerationApi;
  /** Moderators only: hide/restore sites, delete chat messages, mute chat senders. */
  readonly moderation: SiteModerationApi;
  readonly auth: AuthApi;
  readonly sites: SitesApi;
  readonly bookmarks: BookmarksApi;
  readonly chat: ChatApi;

  constructor(options: SvcClientOptions) {
    this.t = new Transport(options);
    this.apps = new AppsApi(this.t);
    this.me = new MeApi(this.t);
    this.appModeration = new AppModerationApi(this.t);
    this.moderation = new SiteModerationApi(this.t);
    this.auth = new AuthApi(this.t);
    this.sites = new SitesApi(this.t);
    this.bookmarks = new BookmarksApi(this.t);
    this.chat = new ChatApi(this.t);
  }

  get baseUrl(): string {
    return this.t.baseUrl;
  }

  /** The current `sn_token` (set by auth.verify, or given in the options). */
  get sessionToken(): string | undefined {
    return this.t.sessionToken;
  }
  set sessionToken(token: string | undefined) {
    this.t.sessionToken = token || undefined;
  }

  get apiKey(): string | undefined {
    return this.t.apiKey;
  }
  set apiKey(key: string | undefined) {
    this.t.apiKey = key || undefined;
  }

  /** POST /api/translate: the input language is detected. */
  translate(body: TranslateInput, signal?: AbortSignal): Promise<TranslateResponse> {
    return translate(this.t, body, signal);
  }

  /** GET /api/daily-bg. */
  dailyBackground(signal?: AbortSignal): Promise<DailyBgResponse> {
    return dailyBackground(this.t, signal);
  }

  /** Opens the real-time channel (`/api/ws`) and keeps it open until `close()`. */
  subscribe(options: SubscribeOptions): Subscription {
    return subscribe(this.t.baseUrl, options);
  }
}
