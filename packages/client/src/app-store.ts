// The application listing interface (/api/v1): apps, reports, API keys, the caller.
import type {
  AppDetailResponse,
  AppListQuery,
  AppListResponse,
  AppStoreMeResponse,
  AppealResponse,
  AuthorAuditPageResponse,
  AuthorAuditQuery,
  ApiKeyListResponse,
  CategoriesResponse,
  CreateApiKeyResponse,
  InstallAppResponse,
  InstalledAppsResponse,
  MyAppsResponse,
  ReportAppBody,
  ReportAppResponse,
  SubmitAppBody,
  SubmitAppResponse,
  UpdateAppBody,
  UpdateAppResponse,
} from '@svc/types';
import type { z } from 'zod';
import { segment } from './query.js';
import type { Transport } from './transport.js';

/** What you may pass: fields with a default (description, category…) are optional. */
export type SubmitAppInput = z.input<typeof SubmitAppBody>;
export type UpdateAppInput = z.input<typeof UpdateAppBody>;
export type ReportAppInput = z.input<typeof ReportAppBody>;
/** Query numbers are numbers here (the schema coerces them from strings on the server). */
export type AppListInput = Partial<AppListQuery>;
export type AuthorAuditInput = Partial<AuthorAuditQuery>;

const app = (slug: string) => `/api/v1/apps/${segment(slug)}`;

/**
 * Path of an app's SVG icon (GET /api/v1/apps/{slug}/icon), for an `<img src>` on the same
 * origin: the browser loads it as an image, so the SVG never enters the page's DOM. Only
 * for apps whose listing item says `has_icon` (otherwise it is a 404).
 */
export function iconUrl(slug: string): string {
  return `${app(slug)}/icon`;
}

export class AppsApi {
  readonly keys: ApiKeysApi;
  constructor(private readonly t: Transport) {
    this.keys = new ApiKeysApi(t);
  }

  /** GET /api/v1/apps: approved apps, most downloaded first. */
  list(query: AppListInput = {}, signal?: AbortSignal): Promise<AppListResponse> {
    return this.t.call('GET', '/api/v1/apps', { auth: 'none', query, signal });
  }

  /** GET /api/v1/apps/{slug}: one approved app (404 otherwise). */
  get(slug: string, signal?: AbortSignal): Promise<AppDetailResponse> {
    return this.t.call('GET', app(slug), { auth: 'none', signal });
  }

  /** POST /api/v1/apps (session or API key): 201, approved at once; 409 if the slug is taken. */
  submit(body: SubmitAppInput, signal?: AbortSignal): Promise<SubmitAppResponse> {
    return this.t.call('POST', '/api/v1/apps', { auth: 'session-or-key', body, signal });
  }

  /** PATCH /api/v1/apps/{slug} (author; a key only for its own app). */
  update(slug: string, body: UpdateAppInput, signal?: AbortSignal): Promise<UpdateAppResponse> {
    return this.t.call('PATCH', app(slug), { auth: 'session-or-key', body, signal });
  }

  /**
   * DELETE /api/v1/apps/{slug} (the author's session only; a key is refused): withdraws the
   * app (gone from the store, kept in `me.apps()` as withdrawn for 30 days, its slug
   * reserved as long), or with `permanent: true` deletes it for good. Again: no change.
   */
  withdraw(
    slug: string,
    options: { permanent?: boolean } = {},
    signal?: AbortSignal,
  ): Promise<void> {
    const query = options.permanent ? { permanent: 'true' } : undefined;
    return this.t.call('DELETE', app(slug), { auth: 'session', query, signal });
  }

  /** POST /api/v1/apps/{slug}/report (session only; once per user). */
  report(
    slug: string,
    body: ReportAppInput = {},
    signal?: AbortSignal,
  ): Promise<ReportAppResponse> {
    return this.t.call('POST', `${app(slug)}/report`, { auth: 'session', body, signal });
  }

  /** GET /api/v1/categories. */
  categories(signal?: AbortSignal): Promise<CategoriesResponse> {
    return this.t.call('GET', '/api/v1/categories', { auth: 'none', signal });
  }
}

/** Per-app API keys; managing them needs the author's session (a key cannot). */
export class ApiKeysApi {
  constructor(private readonly t: Transport) {}

  /** POST /api/v1/apps/{slug}/keys: the secret is in this answer only. */
  create(slug: string, signal?: AbortSignal): Promise<CreateApiKeyResponse> {
    return this.t.call('POST', `${app(slug)}/keys`, { auth: 'session', signal });
  }

  list(slug: string, signal?: AbortSignal): Promise<ApiKeyListResponse> {
    return this.t.call('GET', `${app(slug)}/keys`, { auth: 'session', signal });
  }

  /** DELETE /api/v1/apps/{slug}/keys/{id}: 204; the key answers 401 from then on. */
  revoke(slug: string, id: string, signal?: AbortSignal): Promise<void> {
    return this.t.call('DELETE', `${app(slug)}/keys/${segment(id)}`, { auth: 'session', signal });
  }
}

/** The caller as the app store sees them (session or API key). */
export class MeApi {
  constructor(private readonly t: Transport) {}

  get(signal?: AbortSignal): Promise<AppStoreMeResponse> {
    return this.t.call('GET', '/api/v1/me', { auth: 'session-or-key', signal });
  }

  /** Every app the caller submitted, any status, newest first. */
  apps(signal?: AbortSignal): Promise<MyAppsResponse> {
    return this.t.call('GET', '/api/v1/me/apps', { auth: 'session-or-key', signal });
  }

  /**
   * POST /api/v1/me/apps/{slug}/appeal: appeal the block of one's own app, once per block, at
   * most 1,000 characters (201; 409 when not blocked or already appealed; 404 not the caller's).
   */
  appeal(slug: string, text: string, signal?: AbortSignal): Promise<AppealResponse> {
    return this.t.call('POST', `/api/v1/me/apps/${segment(slug)}/appeal`, {
      auth: 'session',
      body: { text },
      signal,
    });
  }

  /**
   * GET /api/v1/me/apps/{slug}/audit: the audit entries about one's own app, newest first;
   * actors are `system`, `moderator` or `author`. Pass `next_cursor` as `cursor`.
   */
  appAudit(
    slug: string,
    query: AuthorAuditInput = {},
    signal?: AbortSignal,
  ): Promise<AuthorAuditPageResponse> {
    return this.t.call('GET', `/api/v1/me/apps/${segment(slug)}/audit`, {
      auth: 'session-or-key',
      query,
      signal,
    });
  }

  installed(signal?: AbortSignal): Promise<InstalledAppsResponse> {
    return this.t.call('GET', '/api/v1/me/installed', { auth: 'session-or-key', signal });
  }

  install(slug: string, signal?: AbortSignal): Promise<InstallAppResponse> {
    return this.t.call('PUT', `/api/v1/me/installed/${segment(slug)}`, { auth: 'session', signal });
  }

  uninstall(slug: string, signal?: AbortSignal): Promise<void> {
    return this.t.call('DELETE', `/api/v1/me/installed/${segment(slug)}`, {
      auth: 'session',
      signal,
    });
  }
}
